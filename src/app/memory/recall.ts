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
import type { Deps, MemoryRankFields } from "../../ports/mod.ts";
import { rankMemories } from "./retrieval.ts";
import { withRecords } from "./_rank_candidates.ts";
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
  const results: (Scored[] | null)[] = [];
  const held: Scored<MemoryRankFields>[][] = [];
  const marked = new Set<MemoryId>();
  // From candidates, a query's memories are marked in the request that reads the next query's
  // candidates, and every query's records are read with the last one's marks: each ranking sees
  // the marks of the queries before it, as ranking and marking each query in turn does, in one
  // request per query fewer on the hosted backend (issue 25's busiest hour, BENCHMARKS.md). The
  // records returned for earlier queries are read after their own marks (`lastAccessedAt` is
  // this recall's time); scores and rankings are unchanged.
  let unsent: MemoryId[] = [];
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
      hold: true,
      markFirst: unsent,
    });
    if (ranking.held) held.push(ranking.held);
    results.push(ranking.held ? null : ranking.ranked);
    unsent = ranking.held ? ranking.marked ?? [] : [];
    for (const id of ranking.marked ?? []) marked.add(id);
  }
  const read = held.length === 0 ? [] : await withRecords(deps.storage.memories, scope, {
    rankings: held,
    mark: unsent,
    at: options.at,
  });
  return { results: results.map((r) => r ?? read.shift()!), usage: embedded.usage };
}
