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

/** A prompt to send and the label its call is counted under. */
export interface AgentCall<T> {
  prompt: Prompt<T>;
  operation: string;
}

/** {@linkcode completeAs} for the agent `scope` names, under `operation` (as `embedAs` embeds). */
export async function completeIn<T>(
  deps: Pick<Deps, "model">,
  scope: { worldId: string; agentId: string },
  { prompt, operation }: AgentCall<T>,
): Promise<{ value: T; usage: Usage }> {
  return await completeAs(deps, prompt, {
    worldId: scope.worldId,
    agentId: scope.agentId,
    operation,
  });
}

/** {@linkcode completeIn} for the agent's world and agent. */
export async function completeFor<T>(
  deps: Pick<Deps, "model">,
  { world, agent }: AgentContext,
  call: AgentCall<T>,
): Promise<{ value: T; usage: Usage }> {
  return await completeIn(deps, { worldId: world.id, agentId: agent.id }, call);
}
