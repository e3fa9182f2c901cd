/** @module The hosted backend: every store on Upstash Redis (records, indexes, counters) and Upstash Vector (embeddings). */
import { Redis } from "@upstash/redis";
import { Index } from "@upstash/vector";
import { ConfigError, StoreUnavailableError } from "../../src/domain/mod.ts";
import type {
  AuditLog,
  DocumentStore,
  EventLog,
  IdempotencyStore,
  Lock,
  MemoryScan,
  MemoryWriter,
  RateLimiter,
  Storage,
  UnitOfWorkStore,
  UsageLedger,
} from "../../src/ports/mod.ts";
import { ReadBatcher } from "./read_batcher.ts";
import { redisCall, type RedisClient, vectorCall, type VectorClient } from "./redis_calls.ts";
import { UpstashDocumentStore } from "./upstash_document_store.ts";
import { UpstashEventLog } from "./upstash_event_log.ts";
import { UpstashIdempotencyStore } from "./upstash_idempotency_store.ts";
import { UpstashLock } from "./upstash_lock.ts";
import { UpstashMemoryStore } from "./upstash_memory_store.ts";
import { upstashMemoryWriter } from "./upstash_memory_writer.ts";
import { UpstashUsageLedger } from "./upstash_usage_ledger.ts";
import { UpstashAuditLog } from "./upstash_audit_log.ts";
import { UpstashRateLimiter } from "./upstash_rate_limiter.ts";
import { UpstashVectorIndex } from "./upstash_vector_index.ts";
import { UpstashUnitOfWorkStore } from "./upstash_unit_of_work_store.ts";

/** Options for {@linkcode openUpstashStorage}. */
export interface UpstashStorageOptions {
  /** UPSTASH_REDIS_REST_URL */
  redisUrl: string;
  /** UPSTASH_REDIS_REST_TOKEN */
  redisToken: string;
  /** UPSTASH_VECTOR_REST_URL */
  vectorUrl: string;
  /** UPSTASH_VECTOR_REST_TOKEN */
  vectorToken: string;
  /**
   * Starts every Redis key and vector namespace, so several deployments (or test runs) can
   * share one database and index. Letters, digits, "_", "-" and "." only.
   * @default "simulacra"
   */
  keyPrefix?: string;
}

/**
 * Opens the hosted backend: checks that Redis answers (and runs scripts flagged as
 * `@upstash/ratelimit`'s are) and reads the vector index's dimension and similarity from
 * `info()`. The clients speak HTTP, so nothing stays open
 * between calls and `close()` has nothing to release.
 *
 * Redis calls are not retried by the client: appends, counters and claims are not idempotent,
 * and a retry after a lost response would apply them twice. Vector calls (all idempotent) are
 * retried twice on network errors.
 *
 * @throws `config_error` on a malformed URL or key prefix, or a Redis that refuses the
 * `allow-key-locking` script flag; `store_unavailable` when Redis or Vector does not answer.
 * @example
 * ```ts ignore
 * const storage = await openUpstashStorage({
 *   redisUrl: "https://…upstash.io", redisToken: "…",
 *   vectorUrl: "https://…upstash.io", vectorToken: "…",
 * });
 * await storage.ping();
 * ```
 */
export async function openUpstashStorage(options: UpstashStorageOptions): Promise<Storage> {
  const keyPrefix = options.keyPrefix ?? "simulacra";
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(keyPrefix)) {
    throw new ConfigError(
      `Cannot use key prefix "${keyPrefix}": use 1-64 letters, digits, "_", "-" or "."`,
    );
  }
  let redis: Redis;
  let index: Index;
  try {
    redis = new Redis({
      url: options.redisUrl,
      token: options.redisToken,
      automaticDeserialization: false,
      enableTelemetry: false,
      retry: { retries: 0 },
    });
    index = new Index({
      url: options.vectorUrl,
      token: options.vectorToken,
      enableTelemetry: false,
      retry: { retries: 2, backoff: (n) => 100 * 2 ** n },
    });
  } catch (error) {
    throw new ConfigError(
      "Cannot use the Upstash REST URLs: set UPSTASH_REDIS_REST_URL and UPSTASH_VECTOR_REST_URL to the https:// URLs from the Upstash console",
      { cause: error },
    );
  }
  await redisCall("open the hosted store", () => probeRedis(redis));
  const info = await vectorCall("open the hosted store", () => index.info());
  if (!Number.isInteger(info.dimension) || info.dimension < 1) {
    throw new StoreUnavailableError(
      "Cannot open the hosted store: Upstash Vector reported no dimension for the index",
    );
  }
  return new UpstashStorage(redis, index, {
    keyPrefix,
    dimensions: info.dimension,
    similarity: info.similarityFunction ?? "COSINE",
  });
}

/**
 * A script with the shebang flag `@upstash/ratelimit`'s scripts carry: `allow-key-locking`
 * (Upstash's own: lock only the script's keys) is refused by a stock redis-server, e.g. 7.0
 * behind a REST proxy, and every rate-limited request would then fail.
 */
const FLAGGED_PROBE = "#!lua flags=no-writes,allow-key-locking\nreturn 'PONG'";

/** One request: Redis answers, and accepts the flag (see {@linkcode FLAGGED_PROBE}). */
async function probeRedis(redis: Redis): Promise<void> {
  try {
    await redis.eval(FLAGGED_PROBE, [], []);
  } catch (error) {
    // redis-server: "ERR Unexpected flag in script shebang: allow-key-locking".
    const message = error instanceof Error ? error.message : "";
    if (!/unexpected flag[^\n]*allow-key-locking/i.test(message)) throw error;
    throw new ConfigError(
      "Cannot use the Redis behind UPSTASH_REDIS_REST_URL: it refuses the script flag `allow-key-locking` that the rate limiter's scripts (@upstash/ratelimit) carry, as a stock redis-server does. Use Upstash Redis, or for development `deno task upstash:local`, whose gateway drops the flag",
      { cause: error },
    );
  }
}

interface UpstashStorageSettings {
  keyPrefix: string;
  dimensions: number;
  similarity: "COSINE" | "EUCLIDEAN" | "DOT_PRODUCT";
}

/** Every store of the hosted backend, sharing one Redis and one Vector client. */
export class UpstashStorage implements Storage {
  readonly kind = "upstash";
  readonly documents: DocumentStore;
  readonly memories: UpstashMemoryStore;
  readonly vectors: UpstashVectorIndex;
  readonly locks: Lock;
  readonly events: EventLog;
  readonly idempotency: IdempotencyStore;
  readonly usage: UsageLedger;
  readonly rateLimits: RateLimiter;
  readonly audit: AuditLog;
  readonly units: UnitOfWorkStore;
  readonly memoryWriter: MemoryWriter;
  /**
   * Reading every memory per query would cost too much here: retrieval ranks from candidates
   * (the vector top-K and the sorted sets' heads) in two requests.
   */
  readonly memoryScan: MemoryScan = {
    rank: (_scope, _query, options) => options.fromCandidates(),
  };
  readonly #redis: RedisClient;
  readonly #index: VectorClient;
  readonly #reads: ReadBatcher;

  constructor(redis: Redis, index: VectorClient, settings: UpstashStorageSettings) {
    this.#redis = redis;
    this.#index = index;
    const keyPrefix = settings.keyPrefix;
    const reads = this.#reads = new ReadBatcher(redis);
    this.documents = new UpstashDocumentStore({ redis, keyPrefix, reads });
    this.memories = new UpstashMemoryStore({ redis, keyPrefix, reads });
    this.locks = new UpstashLock({ redis, keyPrefix });
    this.events = new UpstashEventLog({ redis, keyPrefix });
    this.idempotency = new UpstashIdempotencyStore({ redis, keyPrefix, reads });
    this.usage = new UpstashUsageLedger({ redis, keyPrefix, reads });
    this.rateLimits = new UpstashRateLimiter({ redis, keyPrefix });
    this.audit = new UpstashAuditLog({ redis, keyPrefix });
    this.units = new UpstashUnitOfWorkStore({ redis, keyPrefix, reads });
    this.vectors = new UpstashVectorIndex({
      index,
      redis,
      reads,
      keyPrefix,
      dimensions: settings.dimensions,
      similarity: settings.similarity,
    });
    this.memoryWriter = upstashMemoryWriter({ memories: this.memories, vectors: this.vectors });
  }

  async ping(): Promise<void> {
    await redisCall("check the hosted store", () => this.#redis.ping());
    await vectorCall("check the hosted store", () => this.#index.info());
  }

  async close(): Promise<void> {
    // Both clients are plain HTTP: there is no connection or file to release, only the counter
    // writes still waiting to ride a request (`ReadBatcher.ride`) to send.
    await this.#reads.drain();
  }
}
