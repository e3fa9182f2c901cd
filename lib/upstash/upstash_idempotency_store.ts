/** @module The hosted IdempotencyStore: first-write-wins values in Upstash Redis. */
import type { Claim, IdempotencyStore, KeepOptions } from "../../src/ports/idempotency_store.ts";
import {
  deleteKeys,
  type LuaScript,
  luaScript,
  ReadBatcher,
  redisCall,
  type RedisClient,
  redisKey,
  scanKeys,
  unexpectedReply,
} from "./_upstash_calls.ts";

/** Configuration of {@linkcode UpstashIdempotencyStore}. */
export interface UpstashIdempotencyStoreConfig {
  redis: RedisClient;
  /** Shared with the other stores so reads started together go out together. */
  reads?: ReadBatcher;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
}

// SET NX and the read of the winner in one atomic script, so the caller that loses the race
// gets exactly the value that won, in one round trip. ARGV[2]: the time to live in ms, 0 none.
const CLAIM = `
local current = redis.call('GET', KEYS[1])
if current then return {0, current} end
if ARGV[2] ~= '0' then
  redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2])
else
  redis.call('SET', KEYS[1], ARGV[1], 'NX')
end
return {1, ARGV[1]}
`;

/**
 * One string key per (scope, key) holding the value's JSON. `claim` is a script (atomic:
 * exactly one concurrent caller gets `created: true`); `put` is a plain SET, pipelined. Throws
 * `store_unavailable` when Upstash fails.
 */
export class UpstashIdempotencyStore implements IdempotencyStore {
  readonly #redis: RedisClient;
  readonly #reads: ReadBatcher;
  readonly #prefix: string;
  readonly #claim: LuaScript;

  constructor(config: UpstashIdempotencyStoreConfig) {
    this.#redis = config.redis;
    this.#reads = config.reads ?? new ReadBatcher(config.redis);
    this.#prefix = config.keyPrefix;
    this.#claim = luaScript(config.redis, CLAIM);
  }

  claim<T>(scope: string, key: string, value: T, options?: KeepOptions): Promise<Claim<T>> {
    return redisCall("claim an idempotency key", async () => {
      const reply: unknown = await this.#claim.exec([this.#key(scope, key)], [
        encode(value),
        String(ttlArgument(options)),
      ]);
      if (!Array.isArray(reply) || reply.length !== 2) unexpectedReply("claim an idempotency key");
      return { created: Number(reply[0]) === 1, value: JSON.parse(String(reply[1])) as T };
    });
  }

  get<T>(scope: string, key: string): Promise<T | null> {
    return redisCall("read an idempotency key", async () => {
      // Batched: a perceive reads every observation's event id at once.
      const raw: unknown = await this.#reads.read((p) => p.get(this.#key(scope, key)));
      return raw === null ? null : JSON.parse(String(raw)) as T;
    });
  }

  put<T>(scope: string, key: string, value: T, options?: KeepOptions): Promise<void> {
    const px = ttlArgument(options);
    return redisCall("store an idempotency key", async () => {
      // In the shared pipeline (its commands run in the order started): a tick's plan writes
      // its marker in the request that reads its units.
      const stored = this.#key(scope, key);
      await this.#reads.read((p) => p.set(stored, encode(value), px > 0 ? { px } : undefined));
    });
  }

  clear(scope: string): Promise<void> {
    // The scope is percent-encoded in the key, so it holds no glob characters.
    const pattern = `${redisKey(this.#prefix, "idem", scope)}:*`;
    return redisCall("forget idempotency keys", async () => {
      await deleteKeys(this.#redis, await scanKeys(this.#redis, pattern));
    });
  }

  #key(scope: string, key: string): string {
    return idempotencyKey(this.#prefix, scope, key);
  }
}

/** The Redis key of an idempotency key (shared with the unit of work's claims). */
export function idempotencyKey(prefix: string, scope: string, key: string): string {
  return redisKey(prefix, "idem", scope, key);
}

/** A time to live as Redis takes it: whole ms, at least 1; 0 when the value is kept. */
export function ttlArgument(options: KeepOptions | undefined): number {
  const ttl = options?.ttlMs;
  return ttl === undefined ? 0 : Math.max(1, Math.ceil(ttl));
}

/** How an idempotency value is stored (shared with the unit of work's claims). */
export function encode(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}
