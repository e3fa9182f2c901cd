/** @module Prompt: insights that answer one reflection question, each citing its numbered evidence (Generative Agents §4.2). */
import { z } from "zod";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { clipLine, inertJson } from "./data_block.ts";

/** Most insights one question may yield (paper: 5). */
export const MAX_INSIGHTS = 5;

/** Inputs of {@linkcode buildReflectionInsightsPrompt}. */
export interface ReflectionInsightsInput {
  agentName: string;
  /** The questions the memories were retrieved for. */
  questions: string[];
  /**
   * The memories retrieved for any of the questions, each once, numbered 1..n in the prompt;
   * citations use those numbers.
   */
  memories: string[];
  /** For each question, the numbers of the memories retrieved for it. */
  recalled: number[][];
}

/**
 * One insight: a statement with the numbers of the memories it rests on. Numbers are not bounded
 * here: a citation that points nowhere is dropped by the caller rather than costing a repair call.
 */
const Insight = z.object({
  insight: z.string().trim().min(1).max(500),
  evidence: z.array(z.number().int()).max(50),
});

/** The insights that answer one question: up to five. */
export const QuestionInsights = z.object({ insights: z.array(Insight).max(MAX_INSIGHTS) });
export type QuestionInsights = z.infer<typeof QuestionInsights>;

/** One answer per question, in the order asked. */
export function reflectionInsightsSchema(input: Pick<ReflectionInsightsInput, "questions">) {
  return z.object({ answers: z.array(QuestionInsights).length(input.questions.length) });
}
export type ReflectionInsightsOutput = z.infer<ReturnType<typeof reflectionInsightsSchema>>;

/** Longest memory line the prompt shows, in characters; longer ones are cut with "…". */
export const EVIDENCE_LINE_CHARS = 120;

/** Memories as "1. text" lines, each on one line and cut to size: the numbers the insights cite. */
function numbered(memories: readonly string[]): string[] {
  return memories.map((m, i) => `${i + 1}. ${clipLine(m, EVIDENCE_LINE_CHARS)}`);
}

/**
 * Builds the reflection-insights prompt for all of a reflection's questions in one call: for
 * each, up to 5 high-level statements, each citing the numbers of the memories that support it
 * (the paper's "(because of 1, 5, 3)", as a structured `evidence` list). The paper asks once per
 * question; one call shows the memories that several questions recalled once and sends the
 * rules once.
 * @see Generative Agents §4.2 "Step 2"; Park et al. 2023 §4.2.
 */
export function buildReflectionInsightsPrompt(
  input: ReflectionInsightsInput,
): Prompt<ReflectionInsightsOutput> {
  return chatPrompt({
    kind: "reflection_insights",
    tier: "main",
    input,
    schema: reflectionInsightsSchema(input),
    maxTokens: 50 + 400 * input.questions.length,
    rules: [
      `For each question, from a character's numbered memories (mostly those recalled for it), write at most ${MAX_INSIGHTS} insights that answer the question or shed light on it: short, general statements in the third person that go beyond any single memory (a trait, a relationship, a habit, a goal, a change).`,
      'List in "evidence" the numbers of the memories that support each insight; cite only listed numbers, and leave out insights no memory supports.',
      `Answer with JSON {"answers": [{"insights": [{"insight": "...", "evidence": [2, 7]}]}, …]} holding one answer per question, in the order asked; an empty list of insights is fine.`,
    ],
    user: [
      `Character: ${inertJson(input.agentName)}`,
      dataSection("Memories, numbered", "memories", numbered(input.memories)),
      dataSection(
        "Questions, in order, each with the numbers of the memories recalled for it",
        "questions",
        input.questions.map((question, q) => ({ question, memories: input.recalled[q] })),
      ),
    ],
  });
}
