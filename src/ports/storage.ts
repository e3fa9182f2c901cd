/** @module Port: the set of stores one backend provides. */
import type { AgentScope, MemoryId } from "../ids.ts";
import type { AuditLog } from "./audit_log.ts";
import type { MemoryKind, MemoryRecord } from "./memory_record.ts";
import type { DocumentStore } from "./document_store.ts";
import type { EventLog } from "./event_log.ts";
import type { IdempotencyStore } from "./idempotency_store.ts";
import type { Lock } from "./lock.ts";
import type { AppendOptions, MemoryStore } from "./memory_store.ts";
import type { RateLimiter } from "./rate_limiter.ts";
import type { UsageLedger } from "./usage_ledger.ts";
import type { VectorEntry, VectorIndex } from "./vector_index.ts";
import type { UnitOfWorkStore } from "./unit_of_work_store.ts";

/** Options of {@linkcode Storage.scanMemories}. */
export interface ScanMemoriesOptions<T> {
  /** Only memories of these kinds. @default every kind */
  kinds?: readonly MemoryKind[];
  /**
   * Called once, synchronously, with the scanned columns; its result is what the scan resolves
   * to. The columns are valid only during the call (a backend may lend views of its own state
   * rather than copy 100,000 rows per query): read them there, do not keep them.
   */
  read(columns: ScannedMemories): T;
}

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
}

/** Every store, from one backend: "embedded" (Deno KV) or "upstash" (Redis + Vector). */
export interface Storage {
  readonly kind: "embedded" | "upstash";
  readonly documents: DocumentStore;
  readonly memories: MemoryStore;
  readonly vectors: VectorIndex;
  readonly locks: Lock;
  readonly events: EventLog;
  readonly idempotency: IdempotencyStore;
  readonly usage: UsageLedger;
  readonly rateLimits: RateLimiter;
  readonly audit: AuditLog;
  /** Leases and document reads in one round trip, document writes and releases in one more. */
  readonly units: UnitOfWorkStore;

  /**
   * Optional, for backends that hold an agent's memories and vectors in process: an exhaustive
   * scan of the agent's memories (of `kinds`, when given), each with the exact cosine of its
   * vector with `query`, as columns ready for exact scoring, handed to `options.read`; resolves
   * to what `read` returns. The columns are one consistent state: no write lands during `read`.
   * Vectors without a memory are left out. Retrieval scores every memory with it; backends
   * without it (hosted ones, where reading every memory per query would cost too much) get
   * candidate generation instead.
   *
   * @throws `invalid_request` when `query` has the wrong dimension or is zero or non-finite;
   * `store_unavailable` when the backend fails; whatever `read` throws.
   */
  scanMemories?<T>(
    scope: AgentScope,
    query: Float32Array,
    options: ScanMemoriesOptions<T>,
  ): Promise<T>;

  /**
   * Optional, for backends that keep something of each vector beside the memories (the hosted
   * one keeps a half-precision copy in Redis): `vectors.upsert(scope, vectors)` then
   * `memories.append(scope, memories, options)`, in that order (a memory is never visible
   * without its vector), in fewer round trips. Throws as those two do.
   */
  appendWithVectors?(
    scope: AgentScope,
    memories: readonly MemoryRecord[],
    vectors: readonly VectorEntry[],
    options?: AppendOptions,
  ): Promise<void>;
  /** Checks the backend answers; throws `store_unavailable` otherwise. */
  ping(): Promise<void>;
  /** Releases connections and files. */
  close(): Promise<void>;
}
