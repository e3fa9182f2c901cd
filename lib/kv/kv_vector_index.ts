/**
 * @module The embedded VectorIndex: an exact in-process cosine index per agent, persisted in Deno KV.
 *
 * Each vector is normalised to unit length on insert and stored as little-endian float32 bytes
 * under `["vec", worldId, agentId, memoryId]`. The first query of an agent loads all its vectors
 * into a column-major slab ({@linkcode VectorSlab}); later upserts and deletes update KV and,
 * once loaded, the slab. A query is an exact scan (a WebAssembly SIMD kernel over the columns
 * where the query is not zero) plus a top-k heap: about 11 ms over 100k dense vectors of 384
 * dimensions, and about 1 ms for the local embedder's sparse ones
 * (`tests/bench/kv_vector_index_bench.ts`). Single-process by design: the slab is this
 * process's copy, so the process that opened the KV file must be its only writer (see
 * `kv_storage.ts`).
 */
import { type AgentScope, type MemoryId, SimulacraError } from "../../src/domain/mod.ts";
import type { VectorEntry, VectorIndex, VectorMatch, VectorSearch } from "../../src/ports/mod.ts";
import { AgentCache } from "./_agent_cache.ts";
import { CacheBudget } from "./_cache_budget.ts";
import {
  addWrites,
  assertKeySize,
  deleteKey,
  deletePrefixes,
  guard,
  type KvWrite,
  listAll,
  planBatches,
  setBytes,
} from "./_kv_support.ts";
import { fromBytes, storedDimensions, toBytes, unitVector } from "./_unit_vectors.ts";
import { VectorSlab } from "./_vector_slab.ts";

/** Configuration of {@linkcode KvVectorIndex}. */
export interface KvVectorIndexOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
  /** The dimension of every vector (the embedder's). */
  dimensions: number;
  /** The cache budget, shared with the memory store. @default 256 MiB of its own */
  budget?: CacheBudget;
}

/** KV reads ten keys at most per `getMany`. */
const GET_MANY = 10;

function vectorKey(scope: AgentScope, id: string): Deno.KvKey {
  return ["vec", scope.worldId, scope.agentId, id];
}

/** Exact cosine search over each agent's embeddings, kept in process and persisted in Deno KV. */
export class KvVectorIndex implements VectorIndex {
  readonly dimensions: number;
  readonly #kv: Deno.Kv;
  readonly #slabs: AgentCache<VectorSlab>;

  constructor(options: KvVectorIndexOptions) {
    this.#kv = options.kv;
    this.dimensions = options.dimensions;
    this.#slabs = new AgentCache({
      budget: options.budget ?? new CacheBudget(),
      tag: "vec",
      bytesOf: (slab) => slab.size * (this.dimensions * 4 + 64),
    });
  }

  /**
   * Inserts or replaces vectors (normalised to unit length). Validates every entry before
   * writing any. Batches larger than one KV atomic operation are written in several; a retry
   * of a failed call converges, since upserts are idempotent.
   *
   * @throws {SimulacraError} `invalid_request` on a wrong dimension or a zero or non-finite vector.
   * @throws {SimulacraError} `store_unavailable` when KV fails.
   */
  async upsert(scope: AgentScope, entries: readonly VectorEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const units = new Map<string, Float32Array>();
    for (const entry of entries) {
      assertKeySize(vectorKey(scope, entry.id), "memory id");
      units.set(entry.id, this.#unit(entry.vector, "store"));
    }
    const writes = [...units].map(([id, unit]) => setBytes(vectorKey(scope, id), toBytes(unit)));
    await this.#write(scope, writes, {
      action: "store vectors",
      mirror: (slab, id) => slab.set(id, units.get(id)!),
    });
  }

  /**
   * The `topK` stored vectors most cosine-similar to `vector`, best first (ties by id). The first
   * query of an agent loads its vectors from KV.
   *
   * @throws {SimulacraError} `invalid_request` on a wrong dimension or a zero or non-finite vector.
   */
  async query(scope: AgentScope, vector: Float32Array, topK: number): Promise<VectorMatch[]> {
    const unit = this.#unit(vector, "query with");
    const slab = await this.#slab(scope);
    return slab.query(unit, topK);
  }

  async queryMany(
    scope: AgentScope,
    vectors: readonly Float32Array[],
    topK: number,
  ): Promise<VectorMatch[][]> {
    const units = vectors.map((v) => this.#unit(v, "query with"));
    const slab = await this.#slab(scope);
    return units.map((unit) => slab.query(unit, topK));
  }

  async search(scope: AgentScope, vector: Float32Array, topK: number): Promise<VectorSearch> {
    const unit = this.#unit(vector, "query with");
    const slab = await this.#slab(scope);
    return slab.search(unit, topK);
  }

  /**
   * The exact cosine of `vector` with every vector of the agent, as a lookup by id (undefined
   * for ids without a vector): one scan, for retrieval to score all memories exactly.
   *
   * @throws {SimulacraError} `invalid_request` on a wrong dimension or a zero or non-finite vector.
   */
  async similarities(
    scope: AgentScope,
    vector: Float32Array,
  ): Promise<(id: MemoryId) => number | undefined> {
    const unit = this.#unit(vector, "score with");
    const slab = await this.#slab(scope);
    return slab.similarities(unit);
  }

  /**
   * Validates `vector` and loads the agent's slab, then returns a synchronous scorer: the exact
   * cosine of `vector` with the vectors of `ids[0..count)`, aligned with them (0 for an id
   * without a vector), for `kvMemoryScan`. `ids` must be append-only (the memory
   * store's column of ids): the slab caches which slot each holds and extends that mapping as
   * `ids` grows, so a scan makes no lookups by id. The scorer's cosines are the slab's scratch
   * array, overwritten by its next scan: read them before awaiting anything. `missing` lists
   * the positions of `ids` without a vector.
   *
   * @throws {SimulacraError} `invalid_request` on a wrong dimension or a zero or non-finite vector.
   * @throws {SimulacraError} `store_unavailable` when loading from KV fails.
   */
  async scorer(
    scope: AgentScope,
    vector: Float32Array,
  ): Promise<
    (ids: readonly string[], count: number) => { cosines: Float32Array; missing: readonly number[] }
  > {
    const unit = this.#unit(vector, "score with");
    const slab = await this.#slab(scope);
    return (ids, count) => {
      const cosines = slab.cosinesOf(unit, ids, count);
      return { cosines, missing: slab.missingOf(ids, count) };
    };
  }

  /** Every memory id with a vector in the scope (loading the agent's vectors on first use). */
  async ids(scope: AgentScope): Promise<MemoryId[]> {
    return (await this.#slab(scope)).ids() as MemoryId[];
  }

  /** How many vectors each scope holds (see the port). */
  async counts(scopes: readonly AgentScope[]): Promise<number[]> {
    const out: number[] = [];
    for (const scope of scopes) out.push((await this.#slab(scope)).size);
    return out;
  }

  /** Exact cosines from the stored unit vectors (see the port). */
  async cosines(
    scope: AgentScope,
    ids: readonly MemoryId[],
    vector: Float32Array,
  ): Promise<Map<MemoryId, number>> {
    const unit = this.#unit(vector, "score with");
    const out = new Map<MemoryId, number>();
    for (const entry of await this.fetch(scope, ids)) {
      let dot = 0;
      for (let i = 0; i < unit.length; i++) dot += unit[i] * entry.vector[i];
      out.set(entry.id, Math.max(-1, Math.min(1, dot)));
    }
    return out;
  }

  /** The stored (unit-length) vectors of these ids, in the order asked; missing ids are left out. */
  async fetch(scope: AgentScope, ids: readonly MemoryId[]): Promise<VectorEntry[]> {
    const unique = [...new Set(ids)];
    const slab = this.#slabs.peek(scope);
    if (slab !== undefined) {
      return unique.flatMap((id) => {
        const vector = slab.get(id);
        return vector === null ? [] : [{ id, vector }];
      });
    }
    return await guard("fetch vectors", async () => {
      // KV reads ten keys per getMany: issue the chunks together rather than one by one.
      const chunks: MemoryId[][] = [];
      for (let i = 0; i < unique.length; i += GET_MANY) chunks.push(unique.slice(i, i + GET_MANY));
      const read = await Promise.all(
        chunks.map((chunk) =>
          this.#kv.getMany<Uint8Array[]>(chunk.map((id) => vectorKey(scope, id)))
        ),
      );
      const found: VectorEntry[] = [];
      read.forEach((entries, c) =>
        entries.forEach((entry, j) => {
          if (entry.value !== null) {
            found.push({ id: chunks[c][j], vector: fromBytes(entry.value) });
          }
        })
      );
      return found;
    });
  }

  /** Removes vectors; ids that do not exist are ignored. */
  async delete(scope: AgentScope, ids: readonly MemoryId[]): Promise<void> {
    if (ids.length === 0) return;
    const writes = [...new Set(ids)].map((id) => deleteKey(vectorKey(scope, id)));
    await this.#write(scope, writes, {
      action: "delete vectors",
      mirror: (slab, id) => slab.delete(id),
    });
  }

  /** Removes every vector of the agent from KV and drops its slab. */
  async clear(scope: AgentScope): Promise<void> {
    await this.#slabs.run(scope, "delete vectors", async () => {
      this.#slabs.drop(scope);
      await deletePrefixes(this.#kv, [["vec", scope.worldId, scope.agentId]]);
    });
  }

  /** Applies KV writes batch by batch, mirroring each committed batch into a loaded slab. */
  async #write(
    scope: AgentScope,
    writes: KvWrite[],
    { action, mirror }: { action: string; mirror: (slab: VectorSlab, id: string) => void },
  ): Promise<void> {
    await this.#slabs.run(scope, action, async () => {
      for (const batch of planBatches(writes)) {
        if (batch.length === 0) continue;
        await addWrites(this.#kv.atomic(), batch).commit();
        const slab = this.#slabs.peek(scope);
        try {
          if (slab !== undefined) { for (const w of batch) mirror(slab, w.key[3] as string); }
        } catch (error) {
          // KV has the batch, the slab may not: drop it, the next query reloads from KV.
          this.#slabs.drop(scope);
          throw error;
        }
      }
    });
  }

  /** The agent's slab, loading it from KV on first use. */
  #slab(scope: AgentScope): Promise<VectorSlab> {
    return this.#slabs.get(scope, "load vectors", async () => {
      const slab = new VectorSlab(this.dimensions);
      const prefix = ["vec", scope.worldId, scope.agentId];
      for (const entry of await listAll<Uint8Array>(this.#kv, { prefix })) {
        const dimensions = storedDimensions(entry.value);
        if (dimensions !== this.dimensions) {
          throw new SimulacraError(
            "config_error",
            `Cannot load the vectors of agent "${scope.agentId}": they have ${dimensions} dimensions, not ${this.dimensions}: configure the embedder they were made with`,
          );
        }
        slab.set(entry.key[3] as string, fromBytes(entry.value));
      }
      return slab;
    });
  }

  /** A unit-length copy of `vector`, or `invalid_request`. */
  #unit(vector: Float32Array, action: string): Float32Array {
    return unitVector(vector, { dimensions: this.dimensions, action });
  }
}
