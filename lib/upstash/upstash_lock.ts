/** @module The hosted Lock: lease locks in Upstash Redis with SET NX PX and token-checked release. */
import type { Lease, Lock } from "../../src/ports/mod.ts";
import { RedisKeys } from "./layout.ts";
import { redisCall, type RedisClient } from "./redis_calls.ts";
import { releaseLock } from "./scripts/release_lock.ts";
import { renewLock } from "./scripts/renew_lock.ts";
import { ReadBatcher } from "./read_batcher.ts";
import { ScriptRunner } from "./scripts/script.ts";

/** Configuration of {@linkcode UpstashLock}. */
export interface UpstashLockConfig {
  redis: RedisClient;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
  /** Makes lease tokens, injectable for tests. @default crypto.randomUUID */
  token?: () => string;
}

/**
 * `acquire` is one `SET key token NX PX ttl`: atomic, and the lease expires on its own inside
 * Redis, so a crashed holder blocks no one past its TTL. `release` is a script that deletes
 * only a lease holding the caller's token. Throws `store_unavailable` when Upstash fails.
 */
export class UpstashLock implements Lock {
  readonly #redis: RedisClient;
  readonly #keys: RedisKeys;
  readonly #token: () => string;
  readonly #scripts: ScriptRunner;
  /**
   * Renewals go in a pipeline gathered for 20 ms: the leases a tick's steps took together are
   * renewed by timers that fire a few ms apart, and each renewal was a request of its own (a
   * renewal has a third of its lease's time to arrive).
   */
  readonly #renewals: ScriptRunner;

  constructor(config: UpstashLockConfig) {
    this.#redis = config.redis;
    this.#keys = new RedisKeys(config.keyPrefix);
    this.#token = config.token ?? (() => crypto.randomUUID());
    this.#scripts = new ScriptRunner(config.redis);
    this.#renewals = new ScriptRunner(
      config.redis,
      new ReadBatcher(config.redis, { windowMs: 20 }),
    );
  }

  acquire(key: string, ttlMs: number): Promise<Lease | null> {
    const token = this.#token();
    const px = Math.max(1, Math.ceil(ttlMs));
    return redisCall("acquire a lock", async () => {
      const reply: unknown = await this.#redis.set(this.#keys.lock(key), token, { nx: true, px });
      return reply === "OK" ? { key, token } : null;
    });
  }

  renew(lease: Lease, ttlMs: number): Promise<boolean> {
    return this.#renewals.run(renewLock, { keys: this.#keys, lease, ttlMs }, { pipelined: true });
  }

  release(lease: Lease): Promise<boolean> {
    return this.#scripts.run(releaseLock, { keys: this.#keys, lease });
  }
}
