/** @module Prompt: the high-level questions an agent's recent memories raise, step 1 of reflection (Generative Agents §4.2). */
import { z } from "zod";
import { dataSection, listPrompt, listSchema, type Prompt } from "./prompt.ts";
import { clipLine, inertJson } from "./data_block.ts";

/** Inputs of {@linkcode buildReflectionQuestionsPrompt}. */
export interface ReflectionQuestionsInput {
  agentName: string;
  /** The agent's most recent memories (up to 100), oldest first; numbered 1..n in the prompt. */
  memories: string[];
  /** How many questions to ask for (the world's `reflectionQuestions`, paper: 3). */
  count: number;
}

const ANSWER = { key: "questions", item: z.string().trim().min(1).max(300) } as const;

/** Exactly `count` questions, most salient first. */
export function reflectionQuestionsSchema(count: number) {
  return listSchema(ANSWER, count);
}
export type ReflectionQuestionsOutput = z.infer<ReturnType<typeof reflectionQuestionsSchema>>;

/** Longest memory line the prompt shows, in characters; longer ones are cut with "…". */
export const REFLECTION_MEMORY_CHARS = 120;

/**
 * Memories as compact lines, oldest first: each cut to {@linkcode REFLECTION_MEMORY_CHARS}, and a line
 * that repeats (an object seen in the same state every tick, a routine action) shown once, where
 * it last occurred, with how often it did. Questions cite no memory, so lines need no numbers;
 * the count keeps what recurs salient without paying for every repetition.
 */
function memoryLines(memories: readonly string[]): string[] {
  const lines = memories.map((m) => clipLine(m, REFLECTION_MEMORY_CHARS));
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(line, (counts.get(line) ?? 0) + 1);
  const last = new Map(lines.map((line, i) => [line, i]));
  return lines.flatMap((line, i) => {
    if (last.get(line) !== i) return [];
    const n = counts.get(line)!;
    return [n === 1 ? line : `${line} (${n} times)`];
  });
}

/**
 * Builds the reflection-questions prompt: from the agent's 100 most recent memories, one compact
 * line each (see {@linkcode memoryLines}), the model proposes `count` salient high-level
 * questions that the memories can answer; each becomes a retrieval query for the insights step.
 * @see Generative Agents §4.2 "Step 1"; Park et al. 2023 §4.2.
 */
export function buildReflectionQuestionsPrompt(
  input: ReflectionQuestionsInput,
): Prompt<ReflectionQuestionsOutput> {
  const n = input.count;
  return listPrompt({
    kind: "reflection_questions",
    tier: "main",
    input,
    answer: ANSWER,
    count: n,
    items: "distinct questions, one sentence each, most important first",
    tokens: { base: 32, each: 48 },
    rules: [
      `Given a character's recent memories, propose the ${n} most salient high-level questions that these memories alone could help answer about the people, places, plans and concerns in them.`,
      "Prefer questions whose answers are general conclusions (a relationship, a passion, a worry, a pattern) to questions about one fact.",
    ],
    user: [
      `Character: ${inertJson(input.agentName)}\n${
        dataSection("Recent memories, oldest first", "memories", memoryLines(input.memories))
      }`,
    ],
  });
}
