/**
 * @module Private to lib/kv: one in-process cache per agent, serialised by a mutex per agent and
 * sized in the shared {@linkcode CacheBudget} (the memory streams and the vector slabs).
 */
import type { AgentScope } from "../../src/domain/mod.ts";
import { agentOwner, type CacheBudget } from "./_cache_budget.ts";
import { KeyedMutex } from "./_keyed_mutex.ts";
import { guard } from "./_kv_support.ts";

/** What an {@linkcode AgentCache} caches and how it counts in the budget. */
export interface AgentCacheOptions<T> {
  budget: CacheBudget;
  /** Starts the item's key in the budget, e.g. "mem" or "vec". */
  tag: string;
  /** The item's estimated bytes. */
  bytesOf: (item: T) => number;
}

/**
 * Each agent's cached item (its state), loaded on first use and dropped least recently used
 * when the budget is exceeded; the KV file has everything, so a dropped item is simply reloaded.
 */
export class AgentCache<T> {
  readonly #items = new Map<string, T>();
  readonly #mutex = new KeyedMutex();
  readonly #options: AgentCacheOptions<T>;

  constructor(options: AgentCacheOptions<T>) {
    this.#options = options;
  }

  /** The cached item, if any, without counting it as used. */
  peek(scope: AgentScope): T | undefined {
    return this.#items.get(agentOwner(scope));
  }

  /** Runs `fn` under the agent's mutex, translating KV errors with `action`. */
  run<R>(scope: AgentScope, action: string, fn: () => Promise<R>): Promise<R> {
    return this.#mutex.run(agentOwner(scope), () => guard(action, fn));
  }

  /** The cached item, else `load`'s under the agent's mutex (`action` names a KV failure). */
  async get(
    scope: AgentScope,
    action: string,
    load: (scope: AgentScope) => Promise<T>,
  ): Promise<T> {
    const cached = this.peek(scope);
    if (cached !== undefined) return this.#used(scope, cached);
    return await this.run(scope, action, () => this.loaded(scope, load));
  }

  /** The cached item, else `load`'s, cached; call under the agent's mutex. */
  async loaded(scope: AgentScope, load: (scope: AgentScope) => Promise<T>): Promise<T> {
    const cached = this.peek(scope);
    if (cached !== undefined) return this.#used(scope, cached);
    const item = await load(scope);
    this.#items.set(agentOwner(scope), item);
    return this.#used(scope, item);
  }

  /** Drops the agent's item (and its place in the budget): the next use reloads it. */
  drop(scope: AgentScope): void {
    const key = agentOwner(scope);
    this.#items.delete(key);
    this.#options.budget.forget(`${this.#options.tag}:${key}`);
  }

  /** Marks an agent's item as just used in the budget (which may evict others). */
  #used(scope: AgentScope, item: T): T {
    const key = agentOwner(scope);
    this.#options.budget.use(`${this.#options.tag}:${key}`, {
      bytes: this.#options.bytesOf(item),
      evict: () => {
        if (this.#items.get(key) === item) this.#items.delete(key);
      },
      owner: key,
    });
    return item;
  }
}
