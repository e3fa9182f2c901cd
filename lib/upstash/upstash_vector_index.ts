/** @module The hosted VectorIndex: one Upstash Vector namespace per agent scope. */
import { SimulacraError } from "../../src/errors.ts";
import type { AgentScope, MemoryId } from "../../src/ids.ts";
import type { VectorEntry, VectorIndex, VectorMatch } from "../../src/ports/vector_index.ts";
import { vectorCall, type VectorClient } from "./_upstash_calls.ts";

/** Configuration of {@linkcode UpstashVectorIndex}. */
export interface UpstashVectorIndexConfig {
  index: VectorClient;
  /** The index's dimension, as read from `info()` when the storage opened. */
  dimensions: number;
  /** Starts every namespace, so deployments can share an index. */
  keyPrefix: string;
  /** The index's similarity function, from `info()`; scores are mapped back to the cosine. */
  similarity: "COSINE" | "EUCLIDEAN" | "DOT_PRODUCT";
}

/** The most vectors one upsert, fetch or delete request carries; larger calls are split. */
const BATCH = 500;
/** Upstash answers at most this many matches per query. */
const MAX_TOP_K = 1000;

/**
 * Each agent's vectors live in the namespace `<prefix>:<worldId>:<agentId>` (ids are URL-safe,
 * so the namespace is too), with metadata `{ worldId, agentId }`. Queries run in that
 * namespace and also filter on the metadata, so one scope can never match another's vectors.
 * Upstash reports COSINE scores as (1 + cos) / 2 (DOT_PRODUCT alike, and EUCLIDEAN as
 * 1 / (1 + d²)); they are mapped back to the cosine, exact for the unit-length vectors
 * embedders produce.
 * Each request is atomic on its own; a call split into batches is not, but every operation
 * is idempotent, so a failed call can simply be retried. Throws `store_unavailable` when
 * Upstash fails and `invalid_request` on a vector of the wrong dimension.
 */
export class UpstashVectorIndex implements VectorIndex {
  readonly dimensions: number;
  readonly #index: VectorClient;
  readonly #prefix: string;
  readonly #similarity: UpstashVectorIndexConfig["similarity"];

  constructor(config: UpstashVectorIndexConfig) {
    this.#index = config.index;
    this.dimensions = config.dimensions;
    this.#prefix = config.keyPrefix;
    this.#similarity = config.similarity;
  }

  async upsert(scope: AgentScope, entries: readonly VectorEntry[]): Promise<void> {
    for (const entry of entries) this.#checkDimensions(entry.vector, `memory "${entry.id}"`);
    const namespace = this.#namespace(scope);
    for (let i = 0; i < entries.length; i += BATCH) {
      const batch = entries.slice(i, i + BATCH).map((entry) => ({
        id: entry.id,
        vector: Array.from(entry.vector),
        metadata: { worldId: scope.worldId, agentId: scope.agentId },
      }));
      await vectorCall("store embeddings", () => namespace.upsert(batch));
    }
  }

  async query(scope: AgentScope, vector: Float32Array, topK: number): Promise<VectorMatch[]> {
    this.#checkDimensions(vector, "the query");
    const k = Math.min(MAX_TOP_K, Math.floor(topK));
    if (k <= 0) return [];
    const matches = await vectorCall(
      "search embeddings",
      () =>
        ifNamespaceExists(() =>
          this.#namespace(scope).query({
            vector: Array.from(vector),
            topK: k,
            filter: `worldId = '${scope.worldId}' AND agentId = '${scope.agentId}'`,
          }), []),
    );
    return matches.map((m) => ({
      id: String(m.id) as MemoryId,
      score: Math.max(-1, Math.min(1, toCosine(m.score, this.#similarity))),
    }));
  }

  async fetch(scope: AgentScope, ids: readonly MemoryId[]): Promise<VectorEntry[]> {
    const found: VectorEntry[] = [];
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      const results = await vectorCall(
        "read embeddings",
        () =>
          ifNamespaceExists(
            () => this.#namespace(scope).fetch(batch, { includeVectors: true }),
            [],
          ),
      );
      for (const result of results) {
        if (result?.vector) {
          found.push({
            id: String(result.id) as MemoryId,
            vector: Float32Array.from(result.vector),
          });
        }
      }
    }
    return found;
  }

  async delete(scope: AgentScope, ids: readonly MemoryId[]): Promise<void> {
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      await vectorCall(
        "delete embeddings",
        () => ifNamespaceExists(() => this.#namespace(scope).delete(batch), { deleted: 0 }),
      );
    }
  }

  async clear(scope: AgentScope): Promise<void> {
    await vectorCall(
      "delete embeddings",
      () => ifNamespaceExists(() => this.#index.deleteNamespace(this.#name(scope)), "Success"),
    );
  }

  #namespace(scope: AgentScope): ReturnType<VectorClient["namespace"]> {
    return this.#index.namespace(this.#name(scope));
  }

  #name(scope: AgentScope): string {
    return `${this.#prefix}:${scope.worldId}:${scope.agentId}`;
  }

  #checkDimensions(vector: Float32Array, what: string): void {
    if (vector.length !== this.dimensions) {
      throw new SimulacraError(
        "invalid_request",
        `Cannot use the embedding of ${what}: it has ${vector.length} dimensions, the vector index has ${this.dimensions}`,
        { details: { dimensions: vector.length, expected: this.dimensions } },
      );
    }
  }
}

/** The cosine behind an Upstash score (unit-length vectors for DOT_PRODUCT and EUCLIDEAN). */
function toCosine(score: number, similarity: UpstashVectorIndexConfig["similarity"]): number {
  // EUCLIDEAN: score = 1 / (1 + d²) and d² = 2 - 2·cos for unit vectors.
  if (similarity === "EUCLIDEAN") return score <= 0 ? -1 : 1 - (1 / score - 1) / 2;
  return 2 * score - 1;
}

/**
 * Runs a call on a namespace that may not exist yet (an agent with no vectors): Upstash
 * answers those with an error, which here means "nothing stored".
 */
async function ifNamespaceExists<T>(call: () => Promise<T>, empty: T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (/namespace/i.test(message) && /(not exist|not found)/i.test(message)) return empty;
    throw error;
  }
}
