/** @module Prompt: the high-level questions an agent's recent memories raise, step 1 of reflection (SPEC §4). */
import { z } from "zod";
import type { Prompt } from "../ports/language_model.ts";
import { DATA_RULE, dataBlock, promptTag } from "./_data_block.ts";

/** Inputs of {@linkcode buildReflectionQuestionsPrompt}. */
export interface ReflectionQuestionsInput {
  agentName: string;
  /** The agent's most recent memories (up to 100), oldest first; numbered 1..n in the prompt. */
  memories: string[];
  /** How many questions to ask for (the world's `reflectionQuestions`, paper: 3). */
  count: number;
}

/** Exactly `count` questions, most salient first. */
export function reflectionQuestionsSchema(count: number) {
  return z.object({ questions: z.array(z.string().trim().min(1).max(300)).length(count) });
}
export type ReflectionQuestionsOutput = z.infer<ReturnType<typeof reflectionQuestionsSchema>>;

/** Memories as "1. text" lines, so the model (and a reader of the log) sees their numbers. */
function numbered(memories: readonly string[]): string[] {
  return memories.map((m, i) => `${i + 1}. ${m}`);
}

/**
 * Builds the reflection-questions prompt: from the agent's 100 most recent memories, the model
 * proposes `count` salient high-level questions that the memories can answer; each becomes a
 * retrieval query for the insights step.
 * @see SPEC §4 "Step 1"; Park et al. 2023 §4.2.
 */
export function buildReflectionQuestionsPrompt(
  input: ReflectionQuestionsInput,
): Prompt<ReflectionQuestionsOutput> {
  const n = input.count;
  return {
    kind: "reflection_questions",
    tier: "main",
    input,
    schema: reflectionQuestionsSchema(n),
    maxTokens: 32 + 48 * n,
    messages: [
      {
        role: "system",
        content: [
          promptTag("reflection_questions"),
          "You help a character in a life simulation step back and think about what has been happening to them lately.",
          `Read the numbered memories and propose the ${n} most salient high-level questions that these memories, and nothing else, could help answer about the people, places, plans and concerns in them.`,
          "Prefer questions whose answers are general conclusions (a relationship, a passion, a worry, a pattern) over questions about one isolated fact.",
          `Answer with JSON {"questions": [...]} holding exactly ${n} distinct questions, one sentence each, most important first.`,
          DATA_RULE,
        ].join("\n"),
      },
      {
        role: "user",
        content: `Character: ${JSON.stringify(input.agentName)}\nRecent memories, oldest first:\n${
          dataBlock("memories", numbered(input.memories))
        }`,
      },
    ],
  };
}
