/** @module Reflection, step 2: cited insights for every question from the memories recalled for them (Generative Agents §4.2). */
import type { Deps } from "../ports/mod.ts";
import {
  type AgentContext,
  buildReflectionInsightsPrompt,
  emptyUsage,
  type QuestionInsights,
  type Usage,
} from "../domain/mod.ts";
import { completeFor } from "./_complete.ts";

/** What the insights are asked from: the questions and the memories recalled for them. */
export interface InsightsRequest {
  questions: readonly string[];
  /** The descriptions of the memories recalled for any question, each once. */
  memories: readonly string[];
  /** For each question, the 1-based numbers in `memories` of those recalled for it. */
  recalled: readonly (readonly number[])[];
}

/**
 * Asks for the insights of every question in one `reflection.insights` call; evidence numbers
 * are 1-based positions in `memories`. No memories: no call, and a null answer per question.
 */
export async function reflectionInsights(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  { questions, memories, recalled }: InsightsRequest,
): Promise<{ answers: (QuestionInsights | null)[]; usage: Usage }> {
  if (memories.length === 0) return { answers: questions.map(() => null), usage: emptyUsage() };
  const { value, usage } = await completeFor(deps, ctx, {
    prompt: buildReflectionInsightsPrompt({
      agentName: ctx.agent.name,
      questions: [...questions],
      memories: [...memories],
      recalled: recalled.map((numbers) => [...numbers]),
    }),
    operation: "reflection.insights",
  });
  return { answers: value.answers, usage };
}
