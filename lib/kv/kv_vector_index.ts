/**
 * @module The embedded VectorIndex: an exact in-process cosine index per agent, persisted in Deno KV.
 *
 * Each vector is normalised to unit length on insert and stored under `["vec", worldId, agentId,
 * memoryId]` as little-endian float32 bytes (or its non-zeros when smaller, see
 * `_unit_vectors.ts`), or, written in bulk, packed many to a value (see `_vector_packs.ts`). The first query of an agent loads all its vectors
 * into a column-major slab ({@linkcode VectorSlab}); later upserts and deletes update KV and,
 * once loaded, the slab. A query is an exact scan (a WebAssembly SIMD kernel over the columns
 * where the query is not zero) plus a top-k heap: about 11 ms over 100k dense vectors of 384
 * dimensions, and about 1 ms for the local embedder's sparse ones
 * (`tests/bench/kv_vector_index_bench.ts`). Single-process by design: the slab is this
 * process's copy, so the process that opened the KV file must be its only writer (see
 * `kv_storage.ts`).
 */
import type { AgentScope, MemoryId } from "../../src/domain/mod.ts";
import type { VectorEntry, VectorIndex, VectorMatch, VectorSearch } from "../../src/ports/mod.ts";
import { AgentCache } from "./_agent_cache.ts";
import { CacheBudget } from "./_cache_budget.ts";
import {
  addWrites,
  assertKeySize,
  deleteKey,
  deletePrefixes,
  planBatches,
  setBytes,
} from "./_kv_support.ts";
import { toBytes, UnitRows, unitVector } from "./_unit_vectors.ts";
import {
  type LoadedVectors,
  loadVectors,
  type Mirrored,
  PACK_MIN,
  packsOf,
  packsWithout,
  packWrites,
} from "./_vector_packs.ts";
import type { VectorSlab } from "./_vector_slab.ts";

/** Configuration of {@linkcode KvVectorIndex}. */
export interface KvVectorIndexOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
  /** The dimension of every vector (the embedder's). */
  dimensions: number;
  /** The cache budget, shared with the memory store. @default 256 MiB of its own */
  budget?: CacheBudget;
}

function vectorKey(scope: AgentScope, id: string | number): Deno.KvKey {
  return ["vec", scope.worldId, scope.agentId, id];
}

/** Exact cosine search over each agent's embeddings, kept in process and persisted in Deno KV. */
export class KvVectorIndex implements VectorIndex {
  readonly dimensions: number;
  readonly #kv: Deno.Kv;
  readonly #slabs: AgentCache<LoadedVectors>;

  constructor(options: KvVectorIndexOptions) {
    this.#kv = options.kv;
    this.dimensions = options.dimensions;
    this.#slabs = new AgentCache({
      budget: options.budget ?? new CacheBudget(),
      tag: "vec",
      bytesOf: ({ slab }) => slab.size * (this.dimensions * 4 + 64),
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
    const units = new Map<string, { unit: Float32Array; at?: Uint16Array }>();
    // A bulk upsert's units share one buffer (only until packed and mirrored), their non-zeros
    // found for packing as they are computed (BENCHMARKS.md, issue 25, 2d and 2f).
    const dims = this.dimensions;
    const bulk = entries.length >= PACK_MIN && dims <= 0x10000;
    const shared = bulk ? new UnitRows(entries.length, dims) : null;
    entries.forEach((entry, row) => {
      assertKeySize(vectorKey(scope, entry.id), "memory id");
      const action = "store";
      units.set(
        entry.id,
        shared?.unit(entry.vector, { row, action }) ??
          { unit: unitVector(entry.vector, { dimensions: dims, action }) },
      );
    });
    const packs = units.size >= PACK_MIN
      ? packsOf([...units].map(([id, { unit, at }]) => ({ id, unit, at })), dims)
      : null;
    if (packs === null) {
      // One key each, the agent's vectors loaded or not: the next load reads them over any pack.
      const writes = [...units].map(([id, { unit }]): Mirrored => ({
        ...setBytes(vectorKey(scope, id), toBytes(unit)),
        mirror: ({ slab }) => slab.set(id, unit),
      }));
      await this.#slabs.run(scope, "store vectors", () => this.#write(scope, writes));
      return;
    }
    await this.#slabs.run(scope, "store vectors", async () => {
      // Packs are numbered after every stored one, so the agent's vectors must be loaded.
      const loaded = await this.#slabs.loaded(scope, this.#load);
      const key = (name: string | number) => vectorKey(scope, name);
      await this.#write(scope, packWrites(loaded, packs, { key, dimensions: this.dimensions }));
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

  /**
   * The stored (unit-length) vectors of these ids, in the order asked; missing ids are left out.
   * Loads the agent's vectors, as a query does: one listing of its prefix in pages of 1,000 (an
   * export reads every vector; a `getMany` per ten ids made 2,000 reads of 20,000), and packed
   * rows have no key of their own.
   */
  async fetch(scope: AgentScope, ids: readonly MemoryId[]): Promise<VectorEntry[]> {
    const slab = await this.#slab(scope);
    const unique = [...new Set(ids)];
    const vectors = slab.getMany(unique);
    return unique.flatMap((id, i) => vectors[i] === null ? [] : [{ id, vector: vectors[i]! }]);
  }

  /** Removes vectors; ids that do not exist are ignored. */
  async delete(scope: AgentScope, ids: readonly MemoryId[]): Promise<void> {
    if (ids.length === 0) return;
    const gone = new Set<string>(ids);
    await this.#slabs.run(scope, "delete vectors", async () => {
      const writes: Mirrored[] = [...gone].map((id) => ({
        ...deleteKey(vectorKey(scope, id)),
        mirror: ({ slab }) => slab.delete(id),
      }));
      const loaded = this.#slabs.peek(scope) ??
        (await this.#packed(scope) ? await this.#slabs.loaded(scope, this.#load) : undefined);
      // Every pack holding a row of a deleted id is written again without it, first.
      const key = (name: string | number) => vectorKey(scope, name);
      const packs = packsWithout(loaded, gone, { key, dimensions: this.dimensions });
      await this.#write(scope, [...packs, ...writes]);
    });
  }

  /** Removes every vector of the agent from KV and drops its slab. */
  async clear(scope: AgentScope): Promise<void> {
    await this.#slabs.run(scope, "delete vectors", async () => {
      this.#slabs.drop(scope);
      await deletePrefixes(this.#kv, [["vec", scope.worldId, scope.agentId]]);
    });
  }

  /**
   * Applies KV writes batch by batch (under the agent's mutex), mirroring each committed batch
   * into the agent's loaded vectors, if loaded.
   */
  async #write(scope: AgentScope, writes: readonly Mirrored[]): Promise<void> {
    for (const batch of planBatches(writes)) {
      if (batch.length === 0) continue;
      await addWrites(this.#kv.atomic(), batch).commit();
      const loaded = this.#slabs.peek(scope);
      try {
        if (loaded !== undefined) { for (const w of batch) (w as Mirrored).mirror(loaded); }
      } catch (error) {
        // KV has the batch, the slab may not: drop it, the next query reloads from KV.
        this.#slabs.drop(scope);
        throw error;
      }
    }
  }

  /** Whether the agent has packs (one key read: KV lists numbers after every memory id). */
  async #packed(scope: AgentScope): Promise<boolean> {
    const prefix = ["vec", scope.worldId, scope.agentId];
    for await (const last of this.#kv.list({ prefix }, { limit: 1, reverse: true })) {
      return typeof last.key[3] === "number";
    }
    return false;
  }

  readonly #load = (scope: AgentScope) =>
    loadVectors(this.#kv, {
      prefix: ["vec", scope.worldId, scope.agentId],
      agentId: scope.agentId,
    }, this.dimensions);

  /** The agent's loaded vectors, loading them from KV on first use. */
  #vectors(scope: AgentScope): Promise<LoadedVectors> {
    return this.#slabs.get(scope, "load vectors", this.#load);
  }

  /** The agent's slab, loading its vectors from KV on first use. */
  async #slab(scope: AgentScope): Promise<VectorSlab> {
    return (await this.#vectors(scope)).slab;
  }

  /** A unit-length copy of `vector`, or `invalid_request`. */
  #unit(vector: Float32Array, action: string): Float32Array {
    return unitVector(vector, { dimensions: this.dimensions, action });
  }
}
