/** @module The hosted VectorIndex: one Upstash Vector namespace per agent scope. */
import type { AgentScope, MemoryId } from "../../src/domain/mod.ts";
import type { VectorEntry, VectorIndex, VectorMatch, VectorSearch } from "../../src/ports/mod.ts";
import { RedisKeys } from "./layout.ts";
import { ReadBatcher } from "./read_batcher.ts";
import {
  redisCall,
  type RedisClient,
  unexpectedReply,
  vectorCall,
  type VectorClient,
} from "./redis_calls.ts";
import { cosine, decodeHalf, encodeHalf } from "./_half_vectors.ts";
import {
  checkDimensions,
  checkStorable,
  ifNamespaceExists,
  type Similarity,
  toCosine,
} from "./_vector_replies.ts";

/** Configuration of {@linkcode UpstashVectorIndex}. */
export interface UpstashVectorIndexConfig {
  index: VectorClient;
  /** Keeps each vector's half-precision copy, for {@linkcode UpstashVectorIndex.cosines}. */
  redis: RedisClient;
  /** Shared with the other stores so reads started together go out together. */
  reads?: ReadBatcher;
  /** The index's dimension, as read from `info()` when the storage opened. */
  dimensions: number;
  /** Starts every namespace, so deployments can share an index. */
  keyPrefix: string;
  /** The index's similarity function, from `info()`; scores are mapped back to the cosine. */
  similarity: Similarity;
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
 * is idempotent, so a failed call can simply be retried.
 *
 * Next to each agent's namespace, a Redis hash (`<prefix>:vq:<worldId>:<agentId>`) keeps every
 * vector in half precision (base64 of a Float16Array: 2 bytes per dimension), written with the
 * same upsert (after the Vector writes) and removed with the same delete (before it). `cosines` answers from it with one HMGET, so a
 * retrieval needs one Vector request (its `search`) even for candidates outside the query's top
 * 1,000. Vectors stored before the copy existed are fetched from Vector instead. Throws `store_unavailable` when
 * Upstash fails and `invalid_request` on a vector of the wrong dimension (and, when storing, a
 * zero or non-finite one, which the embedded index refuses too).
 */
export class UpstashVectorIndex implements VectorIndex {
  readonly dimensions: number;
  readonly #index: VectorClient;
  readonly #redis: RedisClient;
  readonly #reads: ReadBatcher;
  readonly #prefix: string;
  readonly #keys: RedisKeys;
  readonly #similarity: UpstashVectorIndexConfig["similarity"];

  constructor(config: UpstashVectorIndexConfig) {
    this.#index = config.index;
    this.#redis = config.redis;
    this.#reads = config.reads ?? new ReadBatcher(config.redis);
    this.dimensions = config.dimensions;
    this.#prefix = config.keyPrefix;
    this.#keys = new RedisKeys(config.keyPrefix);
    this.#similarity = config.similarity;
  }

  async upsert(scope: AgentScope, entries: readonly VectorEntry[]): Promise<void> {
    const copies = await this.storeRemote(scope, entries);
    for (let i = 0; i < entries.length; i += BATCH) {
      const fields: Record<string, string> = {};
      for (let j = i; j < Math.min(entries.length, i + BATCH); j++) {
        fields[entries[j].id] = copies[j];
      }
      await redisCall(
        "store embeddings",
        () => this.#redis.hset(this.#keys.vectorCopies(scope), fields),
      );
    }
  }

  /**
   * The Vector half of `upsert`: stores the vectors in Upstash Vector and returns their
   * half-precision copies (in order), which the caller must write to the copies hash after
   * (`upsert` does; `upstashMemoryWriter` writes them with the memories). Vector
   * first, the copy after it (and the reverse on delete): a crash in between leaves a vector
   * without a copy (read from Vector instead), never a copy that `ids` cannot list and the
   * repair sweep would therefore never delete.
   */
  async storeRemote(scope: AgentScope, entries: readonly VectorEntry[]): Promise<string[]> {
    checkStorable(entries, this.dimensions);
    const namespace = this.#namespace(scope);
    for (let i = 0; i < entries.length; i += BATCH) {
      const batch = entries.slice(i, i + BATCH).map((entry) => ({
        id: entry.id,
        vector: Array.from(entry.vector),
        metadata: { worldId: scope.worldId, agentId: scope.agentId },
      }));
      await vectorCall("store embeddings", () => namespace.upsert(batch));
    }
    return entries.map((entry) => encodeHalf(entry.vector));
  }

  /**
   * From the half-precision copies in Redis: one HMGET, no Vector request (see the class doc);
   * ids without a copy are fetched from Vector.
   */
  async cosines(
    scope: AgentScope,
    ids: readonly MemoryId[],
    vector: Float32Array,
  ): Promise<Map<MemoryId, number>> {
    checkDimensions(vector, { dimensions: this.dimensions, what: "the query" });
    const out = new Map<MemoryId, number>();
    const unique = [...new Set(ids)];
    if (unique.length === 0) return out;
    const reply: unknown = await redisCall(
      "read embeddings",
      () => this.#reads.read((p) => p.hmget(this.#keys.vectorCopies(scope), ...unique)),
    );
    // With automatic deserialisation off the client answers HMGET as the raw value array.
    if (!Array.isArray(reply) || reply.length !== unique.length) unexpectedReply("read embeddings");
    const uncopied: MemoryId[] = [];
    unique.forEach((id, i) => {
      const copy = reply[i];
      const half = typeof copy === "string" ? decodeHalf(copy, this.dimensions) : null;
      if (half) out.set(id, cosine(half, vector));
      else uncopied.push(id);
    });
    for (const entry of await this.fetch(scope, uncopied)) {
      out.set(entry.id, cosine(entry.vector, vector));
    }
    return out;
  }

  async query(scope: AgentScope, vector: Float32Array, topK: number): Promise<VectorMatch[]> {
    return (await this.queryMany(scope, [vector], topK))[0];
  }

  /** One request carrying every query (Upstash's `queryMany`). */
  async queryMany(
    scope: AgentScope,
    vectors: readonly Float32Array[],
    topK: number,
  ): Promise<VectorMatch[][]> {
    vectors.forEach((v) => checkDimensions(v, { dimensions: this.dimensions, what: "the query" }));
    const k = Math.min(MAX_TOP_K, Math.floor(topK));
    if (k <= 0 || vectors.length === 0) return vectors.map(() => []);
    const filter = this.#filter(scope);
    const queries = vectors.map((v) => ({ vector: Array.from(v), topK: k, filter }));
    const results = await vectorCall(
      "search embeddings",
      () =>
        ifNamespaceExists(
          // A single query comes back flat (the SDK's note on queryMany).
          () =>
            queries.length === 1
              ? this.#namespace(scope).query(queries[0]).then((r) => [r])
              : this.#index.queryMany(queries, { namespace: this.#name(scope) }),
          vectors.map(() => []),
        ),
    );
    return results.map((matches) => matches.map((m) => this.#match(m)));
  }

  /**
   * One request carrying two queries: the top `topK`, and the best match of the negated vector,
   * whose cosine is minus the least cosine in the scope.
   */
  async search(scope: AgentScope, vector: Float32Array, topK: number): Promise<VectorSearch> {
    checkDimensions(vector, { dimensions: this.dimensions, what: "the query" });
    const k = Math.max(1, Math.min(MAX_TOP_K, Math.floor(topK)));
    const filter = this.#filter(scope);
    const [top, opposite] = await vectorCall(
      "search embeddings",
      () =>
        ifNamespaceExists(
          () =>
            this.#index.queryMany([
              { vector: Array.from(vector), topK: k, filter },
              { vector: Array.from(vector, (x) => -x), topK: 1, filter },
            ], { namespace: this.#name(scope) }),
          [[], []],
        ),
    );
    const matches = (topK >= 1 ? top : []).map((m) => this.#match(m));
    return { matches, lowest: opposite.length > 0 ? -this.#match(opposite[0]).score : null };
  }

  #match(m: { id: string | number; score: number }): VectorMatch {
    return {
      id: String(m.id) as MemoryId,
      score: Math.max(-1, Math.min(1, toCosine(m.score, this.#similarity))),
    };
  }

  #filter(scope: AgentScope): string {
    return `worldId = '${scope.worldId}' AND agentId = '${scope.agentId}'`;
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

  async ids(scope: AgentScope): Promise<MemoryId[]> {
    const ids: MemoryId[] = [];
    let cursor: string | number = 0;
    do {
      const page = await vectorCall(
        "list embeddings",
        () =>
          ifNamespaceExists(
            () => this.#namespace(scope).range({ cursor, limit: 1000 }),
            { nextCursor: "", vectors: [] },
          ),
      );
      for (const v of page.vectors) ids.push(String(v.id) as MemoryId);
      cursor = page.nextCursor;
    } while (cursor !== "" && cursor !== "0");
    return ids;
  }

  /** One `info` request: every namespace's count, pending (not yet indexed) vectors included. */
  async counts(scopes: readonly AgentScope[]): Promise<number[]> {
    if (scopes.length === 0) return [];
    const info = await vectorCall("count embeddings", () => this.#index.info());
    return scopes.map((scope) => {
      const ns = info.namespaces?.[this.#name(scope)];
      return ns ? ns.vectorCount + ns.pendingVectorCount : 0;
    });
  }

  async delete(scope: AgentScope, ids: readonly MemoryId[]): Promise<void> {
    for (let i = 0; i < ids.length; i += BATCH) {
      const batch = ids.slice(i, i + BATCH);
      // The copy first (see `upsert`).
      await redisCall(
        "delete embeddings",
        () => this.#redis.hdel(this.#keys.vectorCopies(scope), ...batch),
      );
      await vectorCall(
        "delete embeddings",
        () => ifNamespaceExists(() => this.#namespace(scope).delete(batch), { deleted: 0 }),
      );
    }
  }

  async clear(scope: AgentScope): Promise<void> {
    // The copies first (see `upsert`).
    await redisCall("delete embeddings", () => this.#redis.del(this.#keys.vectorCopies(scope)));
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
}
