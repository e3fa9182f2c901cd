/** @module Ranking from candidates, for backends without exhaustive search (Generative Agents §4.1, Scale). */
import {
  type AgentScope,
  type ComponentBounds,
  type MemoryId,
  type MemoryKind,
  rankColumns,
  type Scored,
  type Weights,
} from "../../domain/mod.ts";
import type {
  MemoryCandidates,
  MemoryInclusion,
  MemoryRankFields,
  Storage,
} from "../../ports/mod.ts";
import type { SharedCandidates } from "./_shared_candidates.ts";

/**
 * How deep each source is read. Vector hits are ids and scores (Upstash caps topK at 1,000);
 * the two sorted-set heads are ids and scores too, so reading a thousand costs one command
 * each, and only the few candidates that can still make the top k are read further.
 */
export const CANDIDATES = { vector: 1000, heads: 1000 } as const;

/** What {@linkcode rankFromCandidates} scores by. */
export interface CandidateOptions {
  at: string;
  weights: Weights;
  decay: number;
  k: number;
  kinds?: readonly MemoryKind[];
  /** Memories besides the live ones that are not superseded. @default none */
  include?: MemoryInclusion;
  /** Cosines already known (of candidates the vector search left out). */
  known?: ReadonlyMap<MemoryId, number>;
  /**
   * The recall this query is `index` of: its search and candidates come from the recall's
   * shared read, and its held marks go ahead of a read of its own (`SharedCandidates`).
   */
  shared?: { session: SharedCandidates; index: number };
}

/** The best k as scored rank fields, and what the pass found on the way. */
export interface CandidateRanking {
  ranked: Scored<MemoryRankFields>[];
  /** How many memories were scored from their rank fields. */
  candidates: number;
  /** Candidates that may rank but have no vector to score relevance by. */
  withoutVector: MemoryId[];
  /**
   * Whether no memory left out could rank above the k returned: the exact top k, as far as
   * the vector search is exact (and cosines from half-precision copies are, within 0.001).
   * Without `kinds` only: with them, ranges are those of all the agent's memories, not of those
   * kinds as exact scoring takes them; and without archived memories, which the heads leave
   * out.
   */
  bounded: boolean;
}

/**
 * The best `k` memories from candidates: the vector top {@linkcode CANDIDATES.vector} ∪ the
 * most recently accessed ∪ the most important, with one Vector request then one small read
 * (`MemoryStore.candidates`), and rarely a second (cosines of a few contenders), that stay
 * small at any stream size.
 *
 * 1. The search also answers the least cosine in the scope, and the sorted sets their lowest
 *    scores: every component is normalised over the ranges of all the agent's memories, so a
 *    candidate scores exactly as it would if every memory were ranked (normalising over the
 *    candidates instead reordered near-ties and cost recall@10).
 * 2. Candidates are scored from their rank fields (numbers from the sorted sets). The vector
 *    hits' scores are final; a candidate outside them has a cosine at most the last hit's, so it
 *    is read further (its cosine, from `VectorIndex.cosines`) only when that bound could beat
 *    the k-th hit. (That takes it to have a vector: a memory a crash left without one is found
 *    here only when it is read further, and otherwise by the repair sweep, `repair.ts`.)
 * 3. A memory in none of the three heads scores at most what the last entries of each give:
 *    below the k-th returned, the ranking is the exact one ({@linkcode CandidateRanking.bounded}).
 */
export async function rankFromCandidates(
  storage: Pick<Storage, "memories" | "vectors">,
  { scope, query }: { scope: AgentScope; query: Float32Array },
  options: CandidateOptions,
): Promise<CandidateRanking> {
  const { vectors } = storage;
  // A second pass (with `known`) reads afresh: the store has changed since the shared read.
  const shared = options.known === undefined && !options.include?.archived &&
      !options.include?.superseded
    ? options.shared
    : undefined;
  // The heads and rank fields are read once the hits are known: one Redis request after the
  // Vector one (reading the heads alongside the search would cost a request of their own).
  const search = shared
    ? await shared.session.search(shared.index)
    : await vectors.search(scope, query, CANDIDATES.vector);
  const { matches } = search;
  const { recent, important, fields: rows } = (shared &&
    await shared.session.candidates(shared.index)) ||
    await readCandidates(storage, scope, { ...options, ids: matches.map((m) => m.id) });
  const cosine = new Map<MemoryId, number>(options.known);
  for (const m of matches) cosine.set(m.id, m.score);
  if (rows.length === 0) return { ranked: [], candidates: 0, withoutVector: [], bounded: true };
  // No live memory (every candidate archived): the candidates' own ranges.
  const bounds: ComponentBounds | undefined = recent.lowest === null || important.lowest === null
    ? undefined
    : {
      accessedMinutes: [recent.lowest, recent.scores[0]],
      importance: [important.lowest, important.scores[0]],
      cosine: search.lowest === null || matches.length === 0
        ? undefined
        : [search.lowest, matches[0].score],
    };
  const rank = (rows: readonly MemoryRankFields[], cosines: ArrayLike<number>, limit: number) =>
    rankColumns({
      records: rows,
      cosines,
      accessedMinutes: rows.map((r) => r.accessedMinutes),
      importance: rows.map((r) => r.importance),
    }, { ...options, bounds, limit });

  const scored = rows.filter((r) => cosine.has(r.id));
  // A search answered with fewer than it asked for returned every vector of the scope: the other
  // candidates have none, or one not yet searchable (`rankMemories` looks them up). Otherwise
  // their cosines are at most the last hit's.
  const full = matches.length >= CANDIDATES.vector;
  const last = full ? matches[matches.length - 1].score : NaN;
  const others = rows.filter((r) => !cosine.has(r.id));
  let withoutVector: MemoryId[] = [];
  if (!full) {
    // Scored as unrelated unless `rankMemories` finds or makes their vectors first.
    withoutVector = others.map((r) => r.id);
    scored.push(...others);
  } else if (others.length > 0) {
    const kth = rank(scored, scored.map((r) => cosine.get(r.id)!), options.k)[options.k - 1];
    const floor = kth ? kth.score - SLACK : -Infinity;
    const contenders = rank(others, others.map(() => last), others.length)
      .filter((s) => s.score >= floor).map((s) => s.memory);
    const found = await vectors.cosines(scope, contenders.map((r) => r.id), query);
    for (const [id, score] of found) cosine.set(id, score);
    scored.push(...contenders);
    withoutVector = contenders.filter((r) => !found.has(r.id)).map((r) => r.id);
  }
  const ranked = rank(scored, scored.map((r) => cosine.get(r.id) ?? 0), options.k);
  return {
    ranked,
    candidates: rows.length,
    withoutVector,
    bounded: options.kinds === undefined && !options.include?.archived &&
      outsidersBelow(
        ranked[options.k - 1],
        recent.ids.length < CANDIDATES.heads || important.ids.length < CANDIDATES.heads
          ? null
          : [recent.scores.at(-1)!, important.scores.at(-1)!, full ? last : NaN],
        rank,
      ),
  };
}

/**
 * The candidates read of one query, with the recall's held marks queued before it (one request
 * on the hosted backend, and the read sees the marks).
 */
async function readCandidates(
  { memories }: Pick<Storage, "memories">,
  scope: AgentScope,
  options: CandidateOptions & { ids: MemoryId[] },
): Promise<MemoryCandidates> {
  options.shared?.session.stop();
  const first = options.shared?.session.take() ?? [];
  const marking = first.length > 0 ? memories.touch(scope, first, options.at) : undefined;
  const [read] = await Promise.all([
    memories.candidates(
      scope,
      options.ids,
      { heads: CANDIDATES.heads, kinds: options.kinds, include: options.include },
    ),
    marking,
  ]);
  return read;
}

/** Slack on score comparisons (scores are at most Σ weights ≤ 300): far above rounding error. */
const SLACK = 1e-9;

/**
 * Whether a memory in none of the heads (accessed at most `edge[0]`, of importance at most
 * `edge[1]`, cosine at most `edge[2]`) scores below `kth`, the k-th ranked (undefined: fewer
 * than k ranked); null `edge`: every memory was a candidate.
 */
function outsidersBelow(
  kth: Scored<MemoryRankFields> | undefined,
  edge: [accessed: number, importance: number, cosine: number] | null,
  rank: (rows: MemoryRankFields[], cosines: number[], limit: number) => Scored<MemoryRankFields>[],
): boolean {
  if (edge === null) return true;
  if (kth === undefined || Number.isNaN(edge[2])) return false;
  const [best] = rank(
    [{
      id: "" as MemoryId,
      createdAt: "",
      accessedMinutes: edge[0],
      importance: edge[1],
    }],
    [edge[2]],
    1,
  );
  return best.score < kth.score - SLACK;
}
