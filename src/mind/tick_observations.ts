/**
 * @module A tick's observations, for every agent at once: their importance to a resident of the
 * world in one fast-model call, and their vectors in one embedding call (Generative Agents §4.1).
 */
import type { Deps } from "../ports/mod.ts";
import {
  buildImportancePrompt,
  emptyUsage,
  ModelUnavailableError,
  type Usage,
  type World,
} from "../domain/mod.ts";
import { completeAs } from "./_complete.ts";

/**
 * One fast-model call scoring `observations` 1-10, in order, as they would matter to a resident
 * of the world; the call carries the world's seed.
 * @throws `model_*` (the caller leaves the scores unknown).
 */
export async function scoreForResidents(
  deps: Pick<Deps, "model">,
  world: Pick<World, "id" | "name" | "settings">,
  observations: readonly string[],
): Promise<{ scores: number[]; usage: Usage }> {
  const { value, usage } = await completeAs(
    deps,
    buildImportancePrompt({
      agentName: `a resident of ${world.name}`,
      observations: [...observations],
    }),
    { worldId: world.id, operation: "importance", seed: world.settings.seed },
  );
  return { scores: value.scores, usage };
}

/**
 * Embeds every distinct text in one call, so each agent's perceive finds its vectors in the
 * embedder's cache (the services wrap the embedder in one) instead of making a call per agent.
 * A failure is left to each perceive, which embeds what it needs.
 */
export async function embedForAll(
  deps: Pick<Deps, "embedder">,
  world: Pick<World, "id">,
  texts: readonly string[],
): Promise<Usage> {
  const distinct = [...new Set(texts)];
  if (distinct.length === 0) return emptyUsage();
  try {
    return (await deps.embedder.embed(distinct, { worldId: world.id, operation: "embedding" }))
      .usage;
  } catch (err) {
    if (err instanceof ModelUnavailableError) return emptyUsage();
    throw err;
  }
}
