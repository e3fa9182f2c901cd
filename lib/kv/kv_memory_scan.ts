/** @module The embedded MemoryScan: an exhaustive scan of an agent's memories and vectors in process. */
import type { MemoryId } from "../../src/domain/mod.ts";
import type { MemoryScan } from "../../src/ports/mod.ts";
import type { KvMemoryStore } from "./kv_memory_store.ts";
import type { KvVectorIndex } from "./kv_vector_index.ts";

/**
 * One process holds both an agent's memories and its vectors, so every query scores every
 * memory exactly: the memory store keeps each agent's memories as columns in append order, the
 * vector slab maps that order to its slots once (extending the mapping as memories arrive), and
 * a query reads only the vector columns where it is not zero.
 */
export function kvMemoryScan(
  stores: { memories: KvMemoryStore; vectors: KvVectorIndex },
): MemoryScan {
  return {
    /**
     * Every memory of the agent (of `kinds`, when given; live and not superseded unless
     * `include` says otherwise) with the exact cosine of its vector with
     * `query` (0 without a vector), as aligned columns handed to `options.exact`: one scan of the
     * vector columns where the query is not zero, no per-memory lookups, parsing or copies
     * (when every row is wanted, `exact` gets views of the store's own columns; nothing can write while
     * it runs, since it reads them synchronously).
     *
     * @throws {SimulacraError} `invalid_request` on a wrong dimension or a zero or non-finite
     * query; `store_unavailable` when KV fails.
     */
    async rank(scope, query, options) {
      const [columns, score] = await Promise.all([
        stores.memories.columns(scope),
        stores.vectors.scorer(scope, query),
      ]);
      // Synchronous from here: the columns and the slab stay as they are until `exact` returns.
      const { cosines, missing } = score(columns.ids, columns.size);
      const view = columns.view(cosines, { kinds: options.kinds, include: options.include });
      const withoutVector = missing.map((row) => columns.ids[row] as MemoryId);
      return await options.exact({ ...view, withoutVector });
    },
  };
}
