/** @module The hosted IdempotencyStore: first-write-wins values in Upstash Redis. */
import type { Claim, IdempotencyStore, KeepOptions, KeepValue } from "../../src/ports/mod.ts";
import { encodeValue, ttlArgument } from "./layout.ts";
import { ScriptedStore, type ScriptedStoreConfig } from "./_scripted_store.ts";
import { deleteKeys, redisCall, scanKeys } from "./redis_calls.ts";
import { claimKey } from "./scripts/claim_key.ts";

/** Configuration of {@linkcode UpstashIdempotencyStore}. */
export type UpstashIdempotencyStoreConfig = ScriptedStoreConfig;

/** SETs per pipelined request of `putMany` (~100 bytes each: far below a request's size limit). */
const PUTS_PER_REQUEST = 2000;

/**
 * One string key per (scope, key) holding the value's JSON. `claim` is a script (atomic:
 * exactly one concurrent caller gets `created: true`); `put` is a plain SET, pipelined. Throws
 * `store_unavailable` when Upstash fails.
 */
export class UpstashIdempotencyStore extends ScriptedStore implements IdempotencyStore {
  claim<T>(scope: string, key: string, { value, ...keep }: KeepValue<T>): Promise<Claim<T>> {
    return this.scripts.run(claimKey<T>(), { keys: this.keys, scope, key, value, keep });
  }

  get<T>(scope: string, key: string): Promise<T | null> {
    return redisCall("read an idempotency key", async () => {
      // Batched: a perceive reads every observation's event id at once.
      const raw: unknown = await this.reads.read((p) => p.get(this.keys.idempotency(scope, key)));
      return raw === null ? null : JSON.parse(String(raw)) as T;
    });
  }

  put<T>(scope: string, key: string, { value, ...keep }: KeepValue<T>): Promise<void> {
    const px = ttlArgument(keep);
    return redisCall("store an idempotency key", async () => {
      // In the shared pipeline (its commands run in the order started): a tick's plan writes
      // its marker in the request that reads its units.
      const stored = this.keys.idempotency(scope, key);
      await this.reads.read((p) => p.set(stored, encodeValue(value), px > 0 ? { px } : undefined));
    });
  }

  /** Plain SETs in the shared pipeline, {@linkcode PUTS_PER_REQUEST} to a request. */
  async putMany<T>(
    scope: string,
    writes: readonly { key: string; value: T }[],
    keep: KeepOptions = {},
  ): Promise<void> {
    for (let i = 0; i < writes.length; i += PUTS_PER_REQUEST) {
      const batch = writes.slice(i, i + PUTS_PER_REQUEST);
      await Promise.all(batch.map(({ key, value }) => this.put(scope, key, { value, ...keep })));
    }
  }

  remove(scope: string, keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return Promise.resolve();
    const stored = keys.map((key) => this.keys.idempotency(scope, key));
    return redisCall("forget idempotency keys", async () => {
      // In the shared pipeline, after what was started before it (a tick's marker).
      await this.reads.read((p) => p.del(...stored));
    });
  }

  clear(scope: string): Promise<void> {
    const pattern = this.keys.idempotencyScope(scope);
    return redisCall("forget idempotency keys", async () => {
      await deleteKeys(this.redis, await scanKeys(this.redis, pattern));
    });
  }
}
