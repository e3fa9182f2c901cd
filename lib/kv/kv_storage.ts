/**
 * @module The embedded Storage backend: every store on one Deno KV database (a file, or in memory).
 *
 * Single-process by design: the memory store and the vector index cache each agent in this
 * process and serialise writes with in-process mutexes, so one process must own the KV file.
 * The KV file stays the source of truth (a restart reloads it), and the atomic checks on every
 * commit point make a second writer fail with `conflict` rather than corrupt data. For several
 * processes or the edge, use the hosted (Upstash) backend.
 *
 * Because one process holds both an agent's memories and its vectors, its `memoryScan` scores
 * every memory of an agent exactly (`kv_memory_scan.ts`).
 */
import { dirname } from "node:path";
import { ConfigError } from "../../src/domain/mod.ts";
import {
  type AuditLog,
  type DocumentStore,
  type EventLog,
  type IdempotencyStore,
  type Lock,
  type MemoryScan,
  type MemoryStore,
  type MemoryWriter,
  type RateLimiter,
  type Storage,
  type UnitOfWorkStore,
  UpsertThenAppend,
  type UsageLedger,
  type VectorIndex,
} from "../../src/ports/mod.ts";
import { guard } from "./_kv_support.ts";
import { CacheBudget } from "./_cache_budget.ts";
import { KvDocumentStore } from "./kv_document_store.ts";
import { KvUnitOfWorkStore } from "./kv_unit_of_work_store.ts";
import { KvEventLog } from "./kv_event_log.ts";
import { KvIdempotencyStore } from "./kv_idempotency_store.ts";
import { KvLock } from "./kv_lock.ts";
import { kvMemoryScan } from "./kv_memory_scan.ts";
import { KvMemoryStore } from "./kv_memory_store.ts";
import { KvUsageLedger } from "./kv_usage_ledger.ts";
import { KvAuditLog } from "./kv_audit_log.ts";
import { KvRateLimiter } from "./kv_rate_limiter.ts";
import { KvVectorIndex } from "./kv_vector_index.ts";

/** Options of {@linkcode openKvStorage}. */
export interface KvStorageOptions {
  /**
   * The KV database file; its parent directory is created.
   * @default an in-memory database, gone when closed
   */
  path?: string;
  /** The embedding dimension every stored vector has (the embedder's). */
  dimensions: number;
  /**
   * Most bytes (estimated) the per-agent caches of memories and vectors may hold together;
   * beyond it the least recently used agents are dropped from memory (and reloaded from the
   * file when next used). @default 256 MiB
   */
  cacheBytes?: number;
}

/** Vectors are stored as one float32 KV value each, so at most 64 KiB / 4 floats. */
const MAX_DIMENSIONS = 15_000;

/** Every store on one Deno KV database. Build it with {@linkcode openKvStorage}. */
export class KvStorage implements Storage {
  readonly kind = "embedded";
  readonly documents: DocumentStore;
  readonly memories: MemoryStore;
  readonly vectors: VectorIndex;
  readonly locks: Lock;
  readonly events: EventLog;
  readonly idempotency: IdempotencyStore;
  readonly usage: UsageLedger;
  readonly rateLimits: RateLimiter;
  readonly audit: AuditLog;
  readonly units: UnitOfWorkStore;
  readonly memoryScan: MemoryScan;
  readonly memoryWriter: MemoryWriter;
  readonly #kv: Deno.Kv;
  readonly #budget: CacheBudget;
  readonly #audit: KvAuditLog;
  #closed = false;

  /** Wraps an open KV, which this storage then owns and closes. */
  constructor(kv: Deno.Kv, options: { dimensions: number; cacheBytes?: number }) {
    this.#kv = kv;
    const budget = this.#budget = new CacheBudget(options.cacheBytes);
    const documents = this.documents = new KvDocumentStore({ kv });
    const memories = this.memories = new KvMemoryStore({ kv, budget });
    const vectors = this.vectors = new KvVectorIndex({
      kv,
      dimensions: options.dimensions,
      budget,
    });
    this.memoryScan = kvMemoryScan({ memories, vectors });
    this.memoryWriter = new UpsertThenAppend({ memories, vectors });
    const locks = this.locks = new KvLock({ kv });
    this.events = new KvEventLog({ kv });
    this.idempotency = new KvIdempotencyStore({ kv });
    this.usage = new KvUsageLedger({ kv });
    this.rateLimits = new KvRateLimiter({ kv });
    this.audit = this.#audit = new KvAuditLog({ kv });
    this.units = new KvUnitOfWorkStore({
      kv,
      documents,
      locks,
      idempotency: this.idempotency,
    });
  }

  /** What the per-agent caches hold now (estimated bytes, items) and their budget. */
  get cache(): { bytes: number; items: number; maxBytes: number } {
    const b = this.#budget;
    return { bytes: b.totalBytes, items: b.size, maxBytes: b.maxBytes };
  }

  /**
   * Reads one key to check that KV answers.
   *
   * @throws {SimulacraError} `store_unavailable` when it does not (or after `close()`).
   */
  async ping(): Promise<void> {
    await guard("reach the embedded store", () => this.#kv.get(["meta", "ping"]));
  }

  /**
   * Closes the KV database once the audit entries being written are in (they are written after
   * their requests are answered); later calls throw `store_unavailable`. Idempotent.
   */
  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      await this.#audit.settled();
      this.#kv.close();
    }
  }
}

/**
 * Opens the embedded backend: a Deno KV file at `path` (its directory created), or an in-memory
 * database when `path` is undefined.
 *
 * @throws {ConfigError} `config_error` when `dimensions` is not an integer from 1 to 15,000.
 * @throws {SimulacraError} `store_unavailable` when the database cannot be opened.
 *
 * @example
 * ```ts
 * const storage = await openKvStorage({ path: ".simulacra/data.kv", dimensions: 384 });
 * ```
 */
export async function openKvStorage(options: KvStorageOptions): Promise<KvStorage> {
  const { path, dimensions, cacheBytes } = options;
  if (cacheBytes !== undefined && !(Number.isInteger(cacheBytes) && cacheBytes > 0)) {
    throw new ConfigError(
      `Cannot budget ${cacheBytes} bytes for the caches: use a positive integer`,
    );
  }
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw new ConfigError(
      `Cannot store vectors of ${dimensions} dimensions: use the embedder's dimension, 1-${MAX_DIMENSIONS}`,
    );
  }
  const kv = await guard("open the embedded store", async () => {
    if (path === undefined) return await Deno.openKv(":memory:");
    await Deno.mkdir(dirname(path), { recursive: true });
    return await Deno.openKv(path);
  });
  return new KvStorage(kv, { dimensions, cacheBytes });
}
