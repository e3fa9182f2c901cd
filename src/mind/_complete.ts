/** @module One model call made for a world or an agent, labelled with the step that makes it. */
import type { Deps, Prompt } from "../ports/mod.ts";
import type { AgentContext, Attribution, Usage } from "../domain/mod.ts";

/**
 * Sends `prompt` under `attribution` (whom it is for, and the label BENCHMARKS.md counts calls
 * by); returns the answer and what it cost.
 */
export async function completeAs<T>(
  deps: Pick<Deps, "model">,
  prompt: Prompt<T>,
  attribution: Attribution,
): Promise<{ value: T; usage: Usage }> {
  const { value, usage } = await deps.model.complete(prompt, attribution);
  return { value, usage };
}

/** {@linkcode completeAs} for the agent's world and agent under `operation`. */
export async function completeFor<T>(
  deps: Pick<Deps, "model">,
  { world, agent }: AgentContext,
  { prompt, operation }: { prompt: Prompt<T>; operation: string },
): Promise<{ value: T; usage: Usage }> {
  return await completeAs(deps, prompt, { worldId: world.id, agentId: agent.id, operation });
}
