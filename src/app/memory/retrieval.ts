/** @module Retrieve: the memories that matter now, scored and explained (Generative Agents §4.1, paper §4.1). */
import { embedAgain } from "./repair.ts";
import { z } from "zod";
import { loadAgent } from "../agents/mod.ts";
import type { Deps, MemoryInclusion, MemoryRankFields } from "../../ports/mod.ts";
import {
  type AgentScope,
  GameTime,
  type MemoryId,
  MemoryKind,
  MemoryRecord,
  rankColumns,
  resolveWeights,
  type Scored,
  UsageCounts,
  type Weights,
  WeightsOrPreset,
} from "../../domain/mod.ts";
import { getWorld } from "../world/mod.ts";
import { rankCandidates, unmarked } from "./_rank_candidates.ts";
import type { SharedCandidates } from "./_shared_candidates.ts";
import { embedQueries } from "../../mind/mod.ts";

/** The body of `POST …/agents/{agent}/retrieve`. */
export const RetrieveInput = z
  .strictObject({
    query: z.string().trim().min(1).max(2000),
    k: z.number().int().min(1).max(100).default(10),
    at: GameTime.optional().meta({
      description: "Game time of the question; default: the world clock",
    }),
    weights: WeightsOrPreset.optional().meta({ description: "Default: the world's setting" }),
    kinds: z.array(MemoryKind).min(1).max(5).optional(),
    tokenBudget: z.number().int().min(1).max(1_000_000).optional().meta({
      description: "Stop before the memories' estimated tokens (⌈characters/4⌉ each) exceed this",
    }),
    includeArchived: z.boolean().default(false).meta({
      description:
        "Also rank the memories moved out of the live set (archived under the memory budget, or merged by consolidation); they carry archivedAt or mergedInto",
    }),
    includeSuperseded: z.boolean().default(false).meta({
      description:
        "Also rank memories a newer one superseded (a fact that changed); they carry supersededBy and invalidAt",
    }),
  })
  .meta({ id: "RetrieveInput", example: { query: "Who is running for mayor?", k: 5 } });
export type RetrieveInput = z.input<typeof RetrieveInput>;

/** A retrieved memory with its score explained. */
export const RetrievedMemory = MemoryRecord.extend({
  score: z.number(),
  components: z.object({ recency: z.number(), importance: z.number(), relevance: z.number() }),
  raw: z.object({ hoursSinceAccess: z.number(), importance: z.number(), cosine: z.number() }),
}).meta({ id: "RetrievedMemory" });
export type RetrievedMemory = z.infer<typeof RetrievedMemory>;

/** The response of retrieve. */
export const RetrieveResult = z
  .object({
    memories: z.array(RetrievedMemory),
    weights: z.object({ recency: z.number(), importance: z.number(), relevance: z.number() }),
    candidates: z.number().int().meta({ description: "How many memories were scored" }),
    exact: z.boolean().meta({ description: "True when every memory of the agent was scored" }),
    usage: UsageCounts,
  })
  .meta({ id: "RetrieveResult" });
export type RetrieveResult = z.infer<typeof RetrieveResult>;

/** What {@linkcode rankMemories} found. */
export interface Ranking {
  ranked: Scored[];
  /** How many memories were scored. */
  candidates: number;
  /** Whether every memory was scored. */
  exact: boolean;
  /** Whether no memory left unscored could rank above those returned (`CandidateRanking`). */
  bounded: boolean;
  /**
   * With `markAccessed`: the ids this call marked, those returned but not in `marked` (with
   * `held`, the ids to mark: not marked yet).
   */
  marked?: MemoryId[];
  /** With `hold`, from candidates: the ranking without its records (`ranked` is empty). */
  held?: Scored<MemoryRankFields>[];
}

/** Options for {@linkcode rankMemories}. */
export interface RankMemoriesOptions {
  /** The query's embedding. */
  query: Float32Array;
  at: string;
  weights: Weights;
  decay: number;
  k: number;
  kinds?: readonly MemoryKind[];
  /** Memories besides the live ones that are not superseded. @default none */
  include?: MemoryInclusion;
  /**
   * Also mark the returned memories accessed at `at` (as retrieval does); on the hosted backend
   * this goes out in the same round trip as reading their records. @default false
   */
  markAccessed?: boolean;
  /**
   * With `markAccessed`: ids already marked at `at` (by an earlier query of the same recall), not
   * marked again; the result's `marked` lists those marked now.
   */
  marked?: ReadonlySet<MemoryId>;
  /**
   * With `markAccessed`, ranking from candidates: neither read the records nor mark the ranked
   * memories; the result's `held` and `marked` are for the caller to read and mark (`recall`
   * holds them in its `shared` session and reads them all at the end). The exact scan ignores
   * it. @default false
   */
  hold?: boolean;
  /**
   * The recall this query is `index` of (`SharedCandidates`): from candidates, its search and
   * read are shared with the recall's other queries; its held marks are marked before ranking
   * (the exact scan marks them with its own, ahead of any read of its own from candidates).
   */
  shared?: { session: SharedCandidates; index: number };
}

/**
 * The agent's best `k` memories for a query vector.
 *
 * The backend's `MemoryScan` picks how. The embedded one scores every memory exactly: the scan
 * returns all the agent's memories (of `kinds`) as columns with their
 * cosines, and {@linkcode rankColumns} ranks them without parsing anything per memory (about
 * 0.4 ms at 10,000 memories and 4 ms at 100,000 with the local embedder's sparse vectors;
 * `tests/bench/memory_bench.ts`).
 *
 * The hosted one ranks from candidates: {@linkcode rankFromCandidates} ranks the vector top-K in the agent's scope ∪ the
 * most recently accessed ∪ the most important (sorted sets), normalised over the ranges of all
 * the agent's memories, and tells whether the memories it left out provably rank below (recall
 * is measured in `tests/src/memory/retrieval_recall_test.ts`); full records are read only for
 * the k returned.
 *
 * A candidate without a vector is never scored as unrelated: its vector is looked up, or the
 * memory embedded again (issue 14), and the candidates ranked again; only then are the returned
 * memories marked accessed.
 *
 * @throws `invalid_request` when the query vector has the wrong dimension; `store_unavailable`.
 */
export async function rankMemories(
  deps: Pick<Deps, "storage" | "embedder">,
  scope: AgentScope,
  options: RankMemoriesOptions,
): Promise<Ranking> {
  const { query } = options;
  let result = await rankOnce(deps, scope, { ...options, repairFirst: true });
  if (result.withoutVector.length > 0) {
    // A memory without a vector would score as unrelated. Its vector may exist yet be missing
    // from the search (the hosted index is eventually consistent, and a short answer is taken
    // to hold every vector): look it up; embed again the ones that really have none; then rank
    // again with those cosines (nothing was marked accessed by the first pass).
    const { vectors, memories } = deps.storage;
    const found = await vectors.cosines(scope, result.withoutVector, query);
    const lacking = result.withoutVector.filter((id) => !found.has(id));
    if (lacking.length > 0) {
      const records = await memories.getMany(scope, lacking);
      await embedAgain(deps, scope, records.filter((r): r is MemoryRecord => r !== null));
      for (const [id, score] of await vectors.cosines(scope, lacking, query)) found.set(id, score);
    }
    // With `known`, the pass reads afresh, after the marks held so far (`SharedCandidates`).
    result = await rankOnce(deps, scope, { ...options, known: found });
  }
  const { ranked, candidates, exact, bounded, marked, held } = result;
  return {
    ranked,
    candidates,
    exact,
    bounded,
    ...(options.markAccessed ? { marked } : {}),
    ...(held ? { held } : {}),
  };
}

/** One ranking pass of {@linkcode rankMemories}. */
interface RankOnceOptions extends RankMemoriesOptions {
  /** Stop (marking nothing) when a candidate has no vector, so it can be repaired first. */
  repairFirst?: boolean;
  /** Cosines already known (of candidates the vector search left out). */
  known?: ReadonlyMap<MemoryId, number>;
}

type Pass = Ranking & { withoutVector: MemoryId[] };

/** The backend ranks (see {@linkcode rankMemories}); then the returned memories are marked. */
function rankOnce(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  options: RankOnceOptions,
): Promise<Pass> {
  const { memories, memoryScan } = deps.storage;
  // Each way marks its memories itself: from candidates, the touch goes out with the reads of
  // the records (one round trip on the hosted backend).
  return memoryScan.rank(scope, options.query, {
    kinds: options.kinds,
    include: options.include,
    exact: async (columns): Promise<Pass> => {
      const scanned = {
        ranked: rankColumns(columns, { ...options, bounds: columns.bounds, limit: options.k }),
        candidates: columns.records.length,
        exact: true,
        bounded: true,
        withoutVector: [...columns.withoutVector],
      };
      const first = options.shared?.session.take() ?? [];
      const stop = options.repairFirst && scanned.withoutVector.length > 0;
      const marked = !stop && options.markAccessed
        ? unmarked(scanned.ranked.map((s) => s.memory.id), options.marked)
        : [];
      if (first.length + marked.length > 0) {
        await memories.touch(scope, [...first, ...marked], options.at);
      }
      return !stop && options.markAccessed ? { ...scanned, marked } : scanned;
    },
    fromCandidates: () => rankCandidates(deps.storage, scope, options),
  });
}

/** Estimated tokens of a memory in a prompt. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4) + 4;
}

/**
 * Retrieves an agent's memories for a natural-language query, best first, with their score
 * components, and marks them accessed at `at`.
 * @throws `world_not_found`, `agent_not_found`, `model_*` (query embedding), `store_unavailable`.
 */
export async function retrieve(
  deps: Pick<Deps, "storage" | "embedder">,
  scope: AgentScope,
  input: RetrieveInput,
): Promise<RetrieveResult> {
  const params = RetrieveInput.parse(input);
  const { worldId } = scope;
  // Read together (one round trip on the hosted backend); a missing world is reported first.
  const [world, agent] = await Promise.allSettled([
    getWorld(deps, worldId),
    loadAgent(deps, scope),
  ]);
  if (world.status === "rejected") throw world.reason;
  if (agent.status === "rejected") throw agent.reason;
  const at = params.at ?? world.value.clock.now;
  const settings = world.value.settings;
  const weights = resolveWeights(params.weights ?? settings.retrievalWeights);
  const embedded = await embedQueries(
    scope,
    { queries: [params.query], operation: "retrieve.query" },
    deps,
  );
  const { ranked, candidates, exact } = await rankMemories(deps, scope, {
    query: embedded.vectors[0],
    at,
    weights,
    decay: settings.recencyDecay,
    k: params.k,
    kinds: params.kinds,
    include: { archived: params.includeArchived, superseded: params.includeSuperseded },
    // With a token budget only the memories that fit are returned, hence marked, below.
    markAccessed: params.tokenBudget === undefined,
  });
  const chosen = withinBudget(ranked, params.tokenBudget);
  if (params.tokenBudget !== undefined) {
    await deps.storage.memories.touch(scope, chosen.map((s) => s.memory.id), at);
  }
  return {
    memories: chosen.map((s) => ({
      ...s.memory,
      lastAccessedAt: at,
      score: s.score,
      components: s.components,
      raw: s.raw,
    })),
    weights,
    candidates,
    exact,
    usage: embedded.usage,
  };
}

/** The best-first prefix whose estimated tokens fit the budget. */
function withinBudget(ranked: Scored[], budget: number | undefined): Scored[] {
  if (budget === undefined) return ranked;
  const out: Scored[] = [];
  let used = 0;
  for (const s of ranked) {
    used += estimateTokens(s.memory.description);
    if (used > budget) break;
    out.push(s);
  }
  return out;
}
