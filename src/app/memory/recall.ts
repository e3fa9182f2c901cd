/** @module Recall for cognition: several queries, one embedding call, results marked accessed. */
import {
  type Agent,
  type AgentScope,
  type GameTime,
  type MemoryId,
  type MemoryKind,
  resolveWeights,
  type Scored,
  type Usage,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { rankMemories } from "./retrieval.ts";
import { embedQueries } from "../../mind/mod.ts";

/** Options for {@linkcode recall}. */
export interface RecallOptions {
  /** Game time of the thought (recency, and the new access time). */
  at: GameTime;
  /** Memories per query. @default 10 */
  k?: number;
  kinds?: readonly MemoryKind[];
}

/** The memories found for each query, best first, and what the embedding cost. */
export interface Recalled {
  results: Scored[][];
  usage: Usage;
}

/**
 * Retrieves an agent's memories for each query with the world's weights: one embedding call for
 * all queries; every memory returned is marked accessed at `at` (the paper's retrieval).
 * @see Generative Agents §4.1; Park et al. 2023 §4.1.
 */
export async function recall(
  deps: Pick<Deps, "storage" | "embedder">,
  { world, agent, queries }: { world: World; agent: Agent; queries: readonly string[] },
  options: RecallOptions,
): Promise<Recalled> {
  const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
  const embedded = await embedQueries(scope, { queries, operation: "recall.query" }, deps);
  const weights = resolveWeights(world.settings.retrievalWeights);
  const results: Scored[][] = [];
  const marked = new Set<MemoryId>();
  for (const vector of embedded.vectors) {
    const ranking = await rankMemories(deps, scope, {
      query: vector,
      at: options.at,
      weights,
      decay: world.settings.recencyDecay,
      k: options.k ?? 10,
      kinds: options.kinds,
      // Marked per query, each memory once, all at the same time: as marking the union.
      markAccessed: true,
      marked,
    });
    results.push(ranking.ranked);
    for (const id of ranking.marked ?? []) marked.add(id);
  }
  return { results, usage: embedded.usage };
}
