/** @module The hosted MemoryWriter: one Vector request, then one Redis request. */
import { type MemoryWriter, vectorsInOrder } from "../../src/ports/mod.ts";
import type { UpstashMemoryStore } from "./upstash_memory_store.ts";
import type { UpstashVectorIndex } from "./upstash_vector_index.ts";

/**
 * Stores the vectors in Upstash Vector, then writes their half-precision copies in the memory
 * store's append script, with the records: storing a memory with its vector costs one Redis
 * request instead of two (the copies' HSET, then the append).
 */
export function upstashMemoryWriter(
  stores: { memories: UpstashMemoryStore; vectors: UpstashVectorIndex },
): MemoryWriter {
  return {
    async append(scope, write, options = {}) {
      if (write.memories.length === 0) return await stores.memories.count(scope);
      const vectorCopies = await stores.vectors.storeRemote(scope, vectorsInOrder(write));
      return await stores.memories.append(scope, write.memories, { ...options, vectorCopies });
    },
  };
}
