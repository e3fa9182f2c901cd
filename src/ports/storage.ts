/** @module Port: the set of stores one backend provides. */
import type { DocumentStore } from "./document_store.ts";
import type { EventLog } from "./event_log.ts";
import type { IdempotencyStore } from "./idempotency_store.ts";
import type { Lock } from "./lock.ts";
import type { MemoryStore } from "./memory_store.ts";
import type { UsageLedger } from "./usage_ledger.ts";
import type { VectorIndex } from "./vector_index.ts";

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
  /** Checks the backend answers; throws `store_unavailable` otherwise. */
  ping(): Promise<void>;
  /** Releases connections and files. */
  close(): Promise<void>;
}
