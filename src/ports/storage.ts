/** @module Port: the set of stores one backend provides. */
import type { AuditLog } from "./audit_log.ts";
import type { DocumentStore } from "./document_store.ts";
import type { EventLog } from "./event_log.ts";
import type { IdempotencyStore } from "./idempotency_store.ts";
import type { Lock } from "./lock.ts";
import type { MemoryStore } from "./memory_store.ts";
import type { MemoryScan } from "./memory_scan.ts";
import type { MemoryWriter } from "./memory_writer.ts";
import type { RateLimiter } from "./rate_limiter.ts";
import type { UsageLedger } from "./usage_ledger.ts";
import type { VectorIndex } from "./vector_index.ts";
import type { UnitOfWorkStore } from "./unit_of_work_store.ts";

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

  /** Ranks an agent's memories for a query: every memory in process, else from candidates. */
  readonly memoryScan: MemoryScan;
  /** Stores new memories with their vectors in as few round trips as the backend allows. */
  readonly memoryWriter: MemoryWriter;
  /** Checks the backend answers; throws `store_unavailable` otherwise. */
  ping(): Promise<void>;
  /** Releases connections and files. */
  close(): Promise<void>;
}
