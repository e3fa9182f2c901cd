/** @module Reflection, step 2: cited insights for each question from the memories recalled for it (Generative Agents §4.2). */
import type { Deps } from "../ports/mod.ts";
import {
  addUsage,
  type AgentContext,
  buildReflectionInsightsPrompt,
  emptyUsage,
  type ReflectionInsightsOutput,
  type Usage,
} from "../domain/mod.ts";
import { completeFor } from "./_complete.ts";

/**
 * Asks for the insights of every question in parallel, one `reflection.insights` call each, from
 * the descriptions of the memories shown for it (`shown[q]` for `questions[q]`); a question with
 * none shown gets no call and a null answer.
 * @throws the first failure, once every call has settled.
 */
export async function reflectionInsights(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  { questions, shown }: { questions: readonly string[]; shown: readonly (readonly string[])[] },
): Promise<{ answers: (ReflectionInsightsOutput | null)[]; usage: Usage }> {
  const answers = await settleAll(
    shown.map((memories, q) =>
      memories.length === 0 ? Promise.resolve(null) : completeFor(deps, ctx, {
        prompt: buildReflectionInsightsPrompt({
          agentName: ctx.agent.name,
          question: questions[q],
          memories: [...memories],
        }),
        operation: "reflection.insights",
      })
    ),
  );
  return {
    answers: answers.map((a) => a?.value ?? null),
    usage: addUsage(...answers.map((a) => a?.usage ?? emptyUsage())),
  };
}

/**
 * Waits for every insights call (so none is left running after a failure), then throws the
 * first failure.
 */
async function settleAll<T>(calls: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(calls);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}
