/** @module Port: writing new memories together with their vectors. */
import { type AgentScope, type MemoryRecord, SimulacraError } from "../domain/mod.ts";
import type { AppendOptions, MemoryStore } from "./memory_store.ts";
import type { VectorEntry, VectorIndex } from "./vector_index.ts";

/** New memories and one vector per memory. */
export interface MemoriesWithVectors {
  memories: readonly MemoryRecord[];
  vectors: readonly VectorEntry[];
}

/** Stores memories with their vectors, in as few round trips as the backend allows. */
export interface MemoryWriter {
  /**
   * `vectors.upsert(scope, vectors)` then `memories.append(scope, memories, options)`, in that
   * order (a memory is never visible without its vector). A backend that keeps something of each
   * vector beside the memories (the hosted one: a half-precision copy in Redis) writes it with
   * the memories. Throws as those two do, and `invalid_request` unless there is exactly one
   * vector per memory. Resolves to `memories.append`'s live count.
   */
  append(scope: AgentScope, write: MemoriesWithVectors, options?: AppendOptions): Promise<number>;
}

/**
 * The vectors in the order of the memories.
 * @throws `invalid_request` unless there is exactly one vector per memory.
 */
export function vectorsInOrder(write: MemoriesWithVectors): VectorEntry[] {
  const byId = new Map(write.vectors.map((v) => [v.id as string, v]));
  const ordered = write.memories.map((m) => byId.get(m.id));
  if (ordered.some((v) => v === undefined) || write.vectors.length !== write.memories.length) {
    throw new SimulacraError(
      "invalid_request",
      "Cannot append memories with vectors: pass exactly one vector per memory",
    );
  }
  return ordered as VectorEntry[];
}

/**
 * The writer of a backend whose two stores cost no more called one after the other (the
 * embedded one, in process): `vectors.upsert`, then `memories.append`.
 */
export class UpsertThenAppend implements MemoryWriter {
  readonly #memories: MemoryStore;
  readonly #vectors: VectorIndex;

  constructor(stores: { memories: MemoryStore; vectors: VectorIndex }) {
    this.#memories = stores.memories;
    this.#vectors = stores.vectors;
  }

  async append(
    scope: AgentScope,
    write: MemoriesWithVectors,
    options: AppendOptions = {},
  ): Promise<number> {
    if (write.memories.length === 0) return await this.#memories.count(scope);
    await this.#vectors.upsert(scope, vectorsInOrder(write));
    return await this.#memories.append(scope, write.memories, options);
  }
}
