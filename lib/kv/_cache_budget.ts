/**
 * @module Private to lib/kv: one memory budget shared by the embedded store's per-agent caches
 * (memory streams and vector slabs), evicted least recently used.
 */

import type { AgentScope } from "../../src/domain/mod.ts";

/** Default budget of the embedded store's caches: 256 MiB. */
export const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;

/** A cached item: its estimated size, how to drop it, and whose it is (`owner` defaults to its key). */
export interface CachedItem {
  bytes: number;
  evict: () => void;
  owner?: string;
}

type Cached = Required<CachedItem>;

/**
 * Tracks the estimated size of each cached item and, when their total passes `maxBytes`, evicts
 * the least recently used ones — never the one just used nor another item of its owner (an
 * agent's memory stream and its vector slab are two items used together), so a single agent
 * larger than the budget still works: it is simply the only one kept. Eviction only drops the
 * in-process copy; the KV file has everything, and the next use reloads it.
 */
export class CacheBudget {
  readonly maxBytes: number;
  /** In use order: the first entry is the least recently used. */
  readonly #items = new Map<string, Cached>();
  #total = 0;

  constructor(maxBytes = DEFAULT_CACHE_BYTES) {
    this.maxBytes = maxBytes;
  }

  /** The estimated bytes of everything cached now. */
  get totalBytes(): number {
    return this.#total;
  }

  /** How many items are cached now. */
  get size(): number {
    return this.#items.size;
  }

  /**
   * Marks `key` as just used, with its current estimated size and how to drop it, then evicts
   * the least recently used items of other owners while the total is over budget.
   */
  use(key: string, { bytes, evict, owner = key }: CachedItem): void {
    const old = this.#items.get(key);
    if (old !== undefined) {
      this.#items.delete(key);
      this.#total -= old.bytes;
    }
    this.#items.set(key, { bytes, evict, owner });
    this.#total += bytes;
    for (const [other, item] of this.#items) {
      if (this.#total <= this.maxBytes) break;
      if (item.owner === owner) continue;
      this.#items.delete(other);
      this.#total -= item.bytes;
      item.evict();
    }
  }

  /** Stops tracking `key` (its cache was dropped for another reason). */
  forget(key: string): void {
    const item = this.#items.get(key);
    if (item === undefined) return;
    this.#items.delete(key);
    this.#total -= item.bytes;
  }
}

/** The owner of an agent's cached items, the same for its memory stream and its vector slab. */
export function agentOwner(scope: AgentScope): string {
  return JSON.stringify([scope.worldId, scope.agentId]);
}
