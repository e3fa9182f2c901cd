/** @module One embedding call made for an agent, labelled with the step that makes it. */
import type { Deps } from "../ports/mod.ts";
import type { Usage } from "../domain/mod.ts";

/**
 * Embeds `texts` in one call for the agent `scope` names, under `operation` (the label
 * BENCHMARKS.md counts calls by); one vector per text, in order, and what the call cost.
 */
export async function embedAs(
  models: Pick<Deps, "embedder">,
  scope: { worldId: string; agentId: string },
  { texts, operation }: { texts: readonly string[]; operation: string },
): Promise<{ vectors: Float32Array[]; usage: Usage }> {
  const { vectors, usage } = await models.embedder.embed(texts, {
    worldId: scope.worldId,
    agentId: scope.agentId,
    operation,
  });
  return { vectors, usage };
}
