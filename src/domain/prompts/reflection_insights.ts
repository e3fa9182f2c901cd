/** @module Prompt: insights that answer one reflection question, each citing its numbered evidence (Generative Agents §4.2). */
import { z } from "zod";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { clipLine, inertJson } from "./data_block.ts";

/** Most insights one question may yield (paper: 5). */
export const MAX_INSIGHTS = 5;

/** Inputs of {@linkcode buildReflectionInsightsPrompt}. */
export interface ReflectionInsightsInput {
  agentName: string;
  /** The question the memories were retrieved for. */
  question: string;
  /** The retrieved memories, numbered 1..n in the prompt; citations use those numbers. */
  memories: string[];
}

/**
 * Up to five insights, each with the numbers of the memories it rests on. Numbers are not
 * bounded here: a citation that points nowhere is dropped by the caller rather than costing a
 * repair call.
 */
export const ReflectionInsightsOutput = z.object({
  insights: z
    .array(
      z.object({
        insight: z.string().trim().min(1).max(500),
        evidence: z.array(z.number().int()).max(50),
      }),
    )
    .max(MAX_INSIGHTS),
});
export type ReflectionInsightsOutput = z.infer<typeof ReflectionInsightsOutput>;

/** Longest memory line the prompt shows, in characters; longer ones are cut with "…". */
export const EVIDENCE_LINE_CHARS = 120;

/** Memories as "1. text" lines, each on one line and cut to size: the numbers the insights cite. */
function numbered(memories: readonly string[]): string[] {
  return memories.map((m, i) => `${i + 1}. ${clipLine(m, EVIDENCE_LINE_CHARS)}`);
}

/**
 * Builds the reflection-insights prompt for one question: up to 5 high-level statements, each
 * citing the numbers of the memories that support it (the paper's "(because of 1, 5, 3)",
 * as a structured `evidence` list).
 * @see Generative Agents §4.2 "Step 2"; Park et al. 2023 §4.2.
 */
export function buildReflectionInsightsPrompt(
  input: ReflectionInsightsInput,
): Prompt<ReflectionInsightsOutput> {
  return chatPrompt({
    kind: "reflection_insights",
    tier: "main",
    input,
    schema: ReflectionInsightsOutput,
    maxTokens: 450,
    rules: [
      `From a character's numbered memories, write at most ${MAX_INSIGHTS} insights that answer the question or shed light on it: short, general statements in the third person that go beyond any single memory (a trait, a relationship, a habit, a goal, a change).`,
      'List in "evidence" the numbers of the memories that support each insight; cite only listed numbers, and leave out insights no memory supports.',
      `Answer with JSON {"insights": [{"insight": "...", "evidence": [2, 7]}]}; an empty list is fine.`,
    ],
    user: [
      `Character: ${inertJson(input.agentName)}`,
      dataSection("Question", "question", input.question),
      dataSection("Memories, numbered", "memories", numbered(input.memories)),
    ],
  });
}
