/** @module Port: ranking an agent's memories for a query by the means a backend affords. */
import type {
  AgentScope,
  ComponentBounds,
  MemoryId,
  MemoryKind,
  MemoryRecord,
} from "../domain/mod.ts";
import type { MemoryInclusion } from "./memory_store.ts";

/**
 * Every memory of an agent with its cosine to a query, as aligned columns: row `i` of each
 * column describes `records[i]`. Rows are in no particular order.
 */
export interface ScannedMemories {
  records: readonly MemoryRecord[];
  /**
   * The cosine of the query with `records[i]`'s vector in the vector index, in [-1, 1]
   * (float32 precision); 0 for a memory without a vector.
   */
  cosines: Float32Array;
  /** `gameMinutes(records[i].lastAccessedAt)`. */
  accessedMinutes: Float64Array;
  /** `records[i].importance`. */
  importance: Float64Array;
  /**
   * The agent's memories (of any kind) that have no vector in the index, so a caller can embed
   * them again instead of scoring them as unrelated (their cosine reads 0). Empty normally.
   */
  withoutVector: readonly MemoryId[];
  /**
   * The ranges to normalise over when the rows are not every memory because some are out of the
   * live set or superseded (ranking from candidates takes the same): cosines over every memory,
   * recency and importance over the live ones. Absent: the rows' own ranges.
   */
  bounds?: ComponentBounds;
}

/** Options of {@linkcode MemoryScan.rank}: both ways to rank; the backend picks one. */
export interface MemoryScanOptions<T> {
  /** Only memories of these kinds. @default every kind */
  kinds?: readonly MemoryKind[];
  /** Memories besides the live ones that are not superseded. @default none */
  include?: MemoryInclusion;
  /**
   * Ranks every memory: called once with the scanned columns. The columns are valid only until
   * the call returns (a backend may lend views of its own state rather than copy 100,000 rows per
   * query): read them synchronously, do not keep them; what follows (e.g. marking the ranked
   * memories accessed) may go on asynchronously.
   */
  exact(columns: ScannedMemories): T | Promise<T>;
  /** Ranks from candidates, through the other stores' ports. */
  fromCandidates(): Promise<T>;
}

/** How a backend ranks an agent's memories for a query. */
export interface MemoryScan {
  /**
   * A backend that holds an agent's memories and vectors in process (the embedded one) scans
   * them all (of `kinds`, when given; live and not superseded unless `include` says otherwise), each with the exact cosine of its vector with `query`, and
   * resolves to what `options.exact` returns; the columns are one consistent state, no write
   * lands while `exact` runs synchronously, and vectors without a memory are left out. A backend where reading
   * every memory per query would cost too much (the hosted one) resolves to what
   * `options.fromCandidates` does.
   *
   * @throws `invalid_request` when `query` has the wrong dimension or is zero or non-finite;
   * `store_unavailable` when the backend fails; whatever the chosen option throws.
   */
  rank<T>(scope: AgentScope, query: Float32Array, options: MemoryScanOptions<T>): Promise<T>;
}
