/** @module The hosted Lock: lease locks in Upstash Redis with SET NX PX and token-checked release. */
import type { Lease, Lock } from "../../src/ports/lock.ts";
import {
  type LuaScript,
  luaScript,
  redisCall,
  type RedisClient,
  redisKey,
} from "./_upstash_calls.ts";

/** Configuration of {@linkcode UpstashLock}. */
export interface UpstashLockConfig {
  redis: RedisClient;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
  /** Makes lease tokens, injectable for tests. @default crypto.randomUUID */
  token?: () => string;
}

// Deletes the key only if it still holds our token, in one atomic script: a GET then DEL from
// the client could delete a lease someone else took after ours expired.
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

// Extends the key's expiry only if it still holds our token, atomically.
const RENEW = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

/** The Redis key of lock `key`; fenced writes of the other stores check it. */
export function lockKey(prefix: string, key: string): string {
  return redisKey(prefix, "lock", key);
}

/**
 * `acquire` is one `SET key token NX PX ttl`: atomic, and the lease expires on its own inside
 * Redis, so a crashed holder blocks no one past its TTL. `release` is a script that deletes
 * only a lease holding the caller's token. Throws `store_unavailable` when Upstash fails.
 */
export class UpstashLock implements Lock {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #token: () => string;
  readonly #release: LuaScript;
  readonly #renew: LuaScript;

  constructor(config: UpstashLockConfig) {
    this.#redis = config.redis;
    this.#prefix = config.keyPrefix;
    this.#token = config.token ?? (() => crypto.randomUUID());
    this.#release = luaScript(config.redis, RELEASE);
    this.#renew = luaScript(config.redis, RENEW);
  }

  acquire(key: string, ttlMs: number): Promise<Lease | null> {
    const token = this.#token();
    const px = Math.max(1, Math.ceil(ttlMs));
    return redisCall("acquire a lock", async () => {
      const reply: unknown = await this.#redis.set(this.#key(key), token, { nx: true, px });
      return reply === "OK" ? { key, token } : null;
    });
  }

  renew(lease: Lease, ttlMs: number): Promise<boolean> {
    const px = Math.max(1, Math.ceil(ttlMs));
    return redisCall("renew a lock", async () => {
      const renewed: unknown = await this.#renew.exec([this.#key(lease.key)], [
        lease.token,
        String(px),
      ]);
      return Number(renewed) === 1;
    });
  }

  release(lease: Lease): Promise<boolean> {
    return redisCall("release a lock", async () => {
      const deleted: unknown = await this.#release.exec([this.#key(lease.key)], [lease.token]);
      return Number(deleted) === 1;
    });
  }

  #key(key: string): string {
    return lockKey(this.#prefix, key);
  }
}
