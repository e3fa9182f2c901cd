/** @module Port: one embedding per memory, searchable within one agent's scope. */
import type { AgentScope, MemoryId } from "../domain/mod.ts";

/** A stored embedding. */
export interface VectorEntry {
  id: MemoryId;
  vector: Float32Array;
}

/** A search hit: cosine similarity in [-1, 1]. */
export interface VectorMatch {
  id: MemoryId;
  score: number;
}

/** What {@linkcode VectorIndex.search} finds. */
export interface VectorSearch {
  /** The `topK` most cosine-similar vectors, best first. */
  matches: VectorMatch[];
  /** The least cosine of any vector in the scope with the query; null when it has none. */
  lowest: number | null;
}

/**
 * Embeddings keyed by memory id within an agent's scope. Vectors of one scope are never
 * matched from another. Throws `store_unavailable` when the backend fails.
 */
export interface VectorIndex {
  /** The dimension every vector must have. */
  readonly dimensions: number;

  /** Inserts or replaces vectors. Idempotent. Throws `invalid_request` on a wrong dimension. */
  upsert(scope: AgentScope, entries: readonly VectorEntry[]): Promise<void>;

  /** The `topK` most cosine-similar vectors in the scope, best first. */
  query(scope: AgentScope, vector: Float32Array, topK: number): Promise<VectorMatch[]>;

  /** As `query` for each vector, in order; one request on the hosted backend. */
  queryMany(
    scope: AgentScope,
    vectors: readonly Float32Array[],
    topK: number,
  ): Promise<VectorMatch[][]>;

  /**
   * As `query`, with the least cosine in the scope too (the range a retrieval normalises by);
   * one request on the hosted backend.
   */
  search(scope: AgentScope, vector: Float32Array, topK: number): Promise<VectorSearch>;

  /** The stored vectors of these ids (missing ids are left out). */
  fetch(scope: AgentScope, ids: readonly MemoryId[]): Promise<VectorEntry[]>;

  /**
   * The cosine of `vector` with the stored vector of each of these ids (ids without one are left
   * out). Cheaper than `fetch` where a backend keeps a compact copy: the hosted one answers from
   * half-precision copies in Redis (within 0.001 of the exact cosine) without a Vector request.
   * Throws `invalid_request` on a wrong dimension.
   */
  cosines(
    scope: AgentScope,
    ids: readonly MemoryId[],
    vector: Float32Array,
  ): Promise<Map<MemoryId, number>>;

  /**
   * Optional, for in-process indexes: the exact cosine of `vector` with every vector in the
   * scope, as a lookup by id (undefined for ids without a vector). Exact retrieval uses
   * `Storage.memoryScan` on a backend that scans; this is the per-index building block.
   */
  similarities?(
    scope: AgentScope,
    vector: Float32Array,
  ): Promise<(id: MemoryId) => number | undefined>;

  /** Every memory id that has a vector in the scope, in no particular order. */
  ids(scope: AgentScope): Promise<MemoryId[]>;

  /**
   * How many vectors each scope holds, in the order asked: the repair sweep's cheap first pass
   * (one request for all scopes on the hosted backend).
   */
  counts(scopes: readonly AgentScope[]): Promise<number[]>;

  /** Removes vectors; ids that do not exist are ignored. */
  delete(scope: AgentScope, ids: readonly MemoryId[]): Promise<void>;

  /** Removes every vector of the scope (and the scope itself, where the backend has one). */
  clear(scope: AgentScope): Promise<void>;
}
