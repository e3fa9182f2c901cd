/** @module One model call made for an agent, labelled with the step that makes it. */
import type { Deps, Prompt } from "../ports/mod.ts";
import type { AgentContext, Usage } from "../domain/mod.ts";

/**
 * Sends `prompt` for the agent's world and agent under `operation`, the label BENCHMARKS.md
 * counts calls by; returns the answer and what it cost.
 */
export async function completeFor<T>(
  deps: Pick<Deps, "model">,
  { world, agent }: AgentContext,
  { prompt, operation }: { prompt: Prompt<T>; operation: string },
): Promise<{ value: T; usage: Usage }> {
  const { value, usage } = await deps.model.complete(prompt, {
    worldId: world.id,
    agentId: agent.id,
    operation,
  });
  return { value, usage };
}
