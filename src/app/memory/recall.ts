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
import { SharedCandidates } from "./_shared_candidates.ts";
import { CANDIDATES } from "./candidates.ts";
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
  // From candidates, every query's hits are read in ONE request (`SharedCandidates`), each
  // ranking seeing the marks of the queries before it, as ranking and marking each query in turn
  // does; the marks are sent with the records at the end, the earlier queries' ahead of the
  // reads and the last one's after, as before: one request per query fewer on the hosted backend
  // (issue 25's busiest hour, BENCHMARKS.md). Scores and rankings are unchanged.
  const session = new SharedCandidates(deps.storage, scope, {
    queries: embedded.vectors,
    kinds: options.kinds,
    at: options.at,
    depth: CANDIDATES,
  });
  let last: MemoryId[] = [];
  for (const [index, vector] of embedded.vectors.entries()) {
    session.hold(last);
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
      shared: { session, index },
    });
    if (ranking.held) held.push(ranking.held);
    results.push(ranking.held ? null : ranking.ranked);
    last = ranking.held ? ranking.marked ?? [] : [];
    for (const id of ranking.marked ?? []) marked.add(id);
  }
  const read = held.length === 0 ? [] : await withRecords(deps.storage.memories, scope, {
    rankings: held,
    markFirst: session.take(),
    mark: last,
    at: options.at,
  });
  return { results: results.map((r) => r ?? read.shift()!), usage: embedded.usage };
}
