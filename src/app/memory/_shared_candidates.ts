/**
 * @module One candidates read for every query of a recall (Generative Agents §4.1 retrieval on
 * a backend without exhaustive search; issue 25's busiest hour, BENCHMARKS.md).
 */
import { type AgentScope, gameMinutes, type MemoryId, type MemoryKind } from "../../domain/mod.ts";
import type {
  IndexLeaders,
  MemoryCandidates,
  MemoryRankFields,
  Storage,
  VectorSearch,
} from "../../ports/mod.ts";

/** A recall's queries, and how their candidates are read (`CANDIDATES` of `candidates.ts`). */
export interface SharedCandidatesOptions {
  queries: readonly Float32Array[];
  kinds?: readonly MemoryKind[];
  /** The recall's time: the access time its marks set. */
  at: string;
  depth: { vector: number; heads: number };
}

/**
 * The vector searches of all a recall's queries, then ONE candidates read of all their hits,
 * from which each query's candidates are derived: the rank fields and heads the store would
 * answer after the earlier queries' marks (`hold`), which are sent with the records at the end
 * instead of ahead of each query's own read. A derivation that the read cannot prove exact (a
 * mark outside a full recency head, or on the lowest entry) answers null: the caller then reads
 * as before, sending the held marks first (`take`), and the session is done deriving.
 */
export class SharedCandidates {
  readonly #storage: Pick<Storage, "memories" | "vectors">;
  readonly #scope: AgentScope;
  readonly #options: SharedCandidatesOptions;
  #searches: Promise<VectorSearch[]> | undefined;
  #read: Promise<MemoryCandidates> | undefined;
  #held: MemoryId[] = [];
  #deriving = true;

  constructor(
    storage: Pick<Storage, "memories" | "vectors">,
    scope: AgentScope,
    options: SharedCandidatesOptions,
  ) {
    this.#storage = storage;
    this.#scope = scope;
    this.#options = options;
  }

  /** Query `index`'s vector search; the first call searches for every query at once. */
  async search(index: number): Promise<VectorSearch> {
    const { queries, depth } = this.#options;
    this.#searches ??= Promise.all(
      queries.map((q) => this.#storage.vectors.search(this.#scope, q, depth.vector)),
    );
    return (await this.#searches)[index];
  }

  /** Marks not sent yet: the ranking of later queries sees them. */
  hold(ids: readonly MemoryId[]): void {
    this.#held = [...this.#held, ...ids];
  }

  /** The held marks, to send now (ahead of a read that must see them); none held after. */
  take(): MemoryId[] {
    const ids = this.#held;
    this.#held = [];
    // What the store holds now is no longer the shared read plus the held marks.
    if (ids.length > 0) this.#deriving = false;
    return ids;
  }

  /** Stops deriving: a query read candidates of its own (see the class). */
  stop(): void {
    this.#deriving = false;
  }

  /** Query `index`'s candidates derived from the shared read, or null (read them yourself). */
  async candidates(index: number): Promise<MemoryCandidates | null> {
    if (!this.#deriving) return null;
    const searches = await this.#searches!;
    this.#read ??= this.#storage.memories.candidates(
      this.#scope,
      [...new Set(searches.flatMap((s) => s.matches.map((m) => m.id)))],
      { heads: this.#options.depth.heads, kinds: this.#options.kinds },
    );
    const read = await this.#read;
    const derived = derive(read, {
      ids: searches[index].matches.map((m) => m.id),
      marked: this.#held,
      score: gameMinutes(this.#options.at),
      heads: this.#options.depth.heads,
    });
    if (derived === null) this.#deriving = false;
    return derived;
  }
}

/**
 * The candidates the store answers for `ids` once `marked` are accessed at `score`: their rank
 * fields and the recency head re-sorted as the sorted set would be (by score, highest first);
 * null when the read does not tell (see {@linkcode SharedCandidates}).
 */
function derive(
  read: MemoryCandidates,
  { ids, marked, score, heads }: {
    ids: readonly MemoryId[];
    marked: readonly MemoryId[];
    score: number;
    heads: number;
  },
): MemoryCandidates | null {
  const rows = new Map(read.fields.map((r) => [r.id, r]));
  const touched = new Set(marked);
  for (const id of touched) {
    const row = rows.get(id);
    if (row === undefined) return null;
    rows.set(id, { ...row, accessedMinutes: score });
  }
  const recent = touched.size === 0 ? read.recent : resorted(read.recent, {
    touched,
    score,
    heads,
    before: (id) => read.fields.find((r) => r.id === id)!.accessedMinutes,
  });
  if (recent === null) return null;
  const order = new Set([...ids, ...recent.ids, ...read.important.ids]);
  const fields: MemoryRankFields[] = [];
  for (const id of order) {
    const row = rows.get(id);
    if (row !== undefined) fields.push(row);
  }
  return { recent, important: read.important, fields };
}

/** The recency head after `touched` moved to `score`, or null when the head read cannot tell. */
function resorted(
  head: IndexLeaders,
  { touched, score, heads, before }: {
    touched: ReadonlySet<MemoryId>;
    score: number;
    heads: number;
    before: (id: MemoryId) => number;
  },
): IndexLeaders | null {
  const whole = head.ids.length < heads;
  const inHead = new Set(head.ids);
  if (whole) {
    // Every memory is in the head: one outside it is not in the index the head sorts.
    if ([...touched].some((id) => !inHead.has(id))) return null;
  } else {
    // A full head: the memories below it score at most its last, so a touched one must end
    // above; and the lowest entry, which the read names by score only, must stay where it is.
    if (!(score > head.scores[head.ids.length - 1])) return null;
    if ([...touched].some((id) => before(id) === head.lowest)) return null;
  }
  const entries = head.ids.map((id, i) => ({
    id,
    score: touched.has(id) ? score : head.scores[i],
  }));
  for (const id of touched) if (!inHead.has(id)) entries.push({ id, score });
  // Stable, by score only: the store's order of equal scores is kept, and a cut between equal
  // scores (which the store breaks by its own order) is left to the store.
  entries.sort((a, b) => b.score - a.score);
  if (entries.length > heads && entries[heads - 1].score === entries[heads].score) return null;
  const kept = entries.slice(0, heads);
  const lowest = whole
    ? (kept.length === 0 ? null : kept[kept.length - 1].score)
    : Math.min(head.lowest!, score);
  return { ids: kept.map((e) => e.id), scores: kept.map((e) => e.score), lowest };
}
