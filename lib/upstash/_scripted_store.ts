/** @module What the hosted stores that batch their reads and run scripts are built from. */
import { RedisKeys } from "./layout.ts";
import { ReadBatcher } from "./read_batcher.ts";
import type { RedisClient } from "./redis_calls.ts";
import { ScriptRunner } from "./scripts/script.ts";

/** Configuration of a hosted store that batches its reads and runs scripts. */
export interface ScriptedStoreConfig {
  redis: RedisClient;
  /** Shared with the other stores so reads started together go out together. */
  reads?: ReadBatcher;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
}

/**
 * The Redis client, read batcher, key layout and script runner of the document, idempotency and
 * memory stores, built the same way for each.
 */
export abstract class ScriptedStore {
  protected readonly redis: RedisClient;
  protected readonly reads: ReadBatcher;
  protected readonly keys: RedisKeys;
  protected readonly scripts: ScriptRunner;

  constructor(config: ScriptedStoreConfig) {
    this.redis = config.redis;
    this.reads = config.reads ?? new ReadBatcher(config.redis);
    this.keys = new RedisKeys(config.keyPrefix);
    this.scripts = new ScriptRunner(config.redis, this.reads);
  }
}
