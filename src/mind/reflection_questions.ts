/** @module Reflection, step 1: the questions an agent asks itself about its newest memories (Generative Agents §4.2). */
import type { Deps } from "../ports/mod.ts";
import { type AgentContext, buildReflectionQuestionsPrompt, type Usage } from "../domain/mod.ts";
import { completeFor } from "./_complete.ts";

/**
 * Asks the main model for the world's `reflectionQuestions` questions about `memories` (their
 * descriptions, oldest first): one `reflection.questions` call.
 */
export async function reflectionQuestions(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  memories: readonly string[],
): Promise<{ questions: string[]; usage: Usage }> {
  const asked = await completeFor(deps, ctx, {
    prompt: buildReflectionQuestionsPrompt({
      agentName: ctx.agent.name,
      memories: [...memories],
      count: ctx.world.settings.reflectionQuestions,
    }),
    operation: "reflection.questions",
  });
  return { questions: asked.value.questions, usage: asked.usage };
}
