/** @module The hosted MemoryWriter: one Vector request, then one Redis request. */
import { type MemoryWriter, vectorsInOrder } from "../../src/ports/mod.ts";
import type { UpstashMemoryStore } from "./upstash_memory_store.ts";
import type { UpstashVectorIndex } from "./upstash_vector_index.ts";

/**
 * Stores the vectors in Upstash Vector, then writes their half-precision copies in the memory
 * store's append script, with the records: storing a memory with its vector costs one Redis
 * request instead of two (the copies' HSET, then the append).
 *
 * Appends started together (in one turn of the event loop, e.g. what every listener of a talk
 * overheard) each wait for the others' Vector writes before their Redis script, so the scripts
 * share one pipelined request instead of going out one by one as the Vector answers come back
 * (issue 25's busiest hour, BENCHMARKS.md). Each append is still its own atomic script; a failed
 * Vector write fails only its own append.
 */
export function upstashMemoryWriter(
  stores: { memories: UpstashMemoryStore; vectors: UpstashVectorIndex },
): MemoryWriter {
  let group: Promise<unknown>[] | null = null;
  return {
    async append(scope, write, options = {}) {
      if (write.memories.length === 0) return await stores.memories.count(scope);
      const remote = stores.vectors.storeRemote(scope, vectorsInOrder(write));
      if (group === null) {
        group = [];
        // Closed after two microtasks, as the shared read pipeline gathers.
        void Promise.resolve().then().then(() => group = null);
      }
      const peers = group;
      peers.push(remote);
      const vectorCopies = await remote;
      await Promise.allSettled(peers);
      return await stores.memories.append(scope, write.memories, { ...options, vectorCopies });
    },
  };
}
