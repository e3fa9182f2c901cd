/**
 * @module Private to the unit of work: reads an operation declares up front (as data), started
 * with its leases and served once to the first matching call of the unit's stores, so the
 * saving of making them in the begin round trip stays out of the operation's signatures.
 */
import type { AgentScope } from "../../domain/mod.ts";
import type {
  IdempotencyStore,
  ListMemoriesOptions,
  MemoryPage,
  MemoryStore,
  Storage,
} from "../../ports/mod.ts";

/**
 * A read the work will make, declared so it can start with the leases: an idempotency key's
 * value, or a page of an agent's memories. The work then makes the same call as usual.
 */
export type DeclaredRead =
  | { claim: { scope: string; key: string } }
  | { memories: { scope: AgentScope; options: ListMemoriesOptions } };

function claimKey(scope: string, key: string): string {
  return JSON.stringify(["claim", scope, key]);
}

function memoriesKey(scope: AgentScope, options: ListMemoriesOptions): string {
  return JSON.stringify(["memories", scope.worldId, scope.agentId, options]);
}

/** Declared reads in flight, each handed to the first call that asks for it. */
export class WorkReads {
  readonly #started = new Map<string, Promise<unknown>>();

  /** Starts `reads` on `storage`; a failure is the work's to see, never an unhandled rejection. */
  constructor(storage: Storage, reads: readonly DeclaredRead[]) {
    for (const read of reads) {
      const [key, promise] = "claim" in read
        ? [
          claimKey(read.claim.scope, read.claim.key),
          storage.idempotency.get(read.claim.scope, read.claim.key),
        ]
        : [
          memoriesKey(read.memories.scope, read.memories.options),
          storage.memories.list(read.memories.scope, read.memories.options),
        ];
      promise.catch(() => {});
      this.#started.set(key, promise);
    }
  }

  /** `base` with `get` served from the declared reads first. */
  idempotency(base: IdempotencyStore): IdempotencyStore {
    return {
      claim: (scope, key, write) => base.claim(scope, key, write),
      get: <T>(scope: string, key: string) =>
        (this.#take(claimKey(scope, key)) as Promise<T | null> | undefined) ??
          base.get<T>(scope, key),
      put: (scope, key, write) => base.put(scope, key, write),
      putMany: (scope, writes, keep) => base.putMany(scope, writes, keep),
      remove: (scope, keys) => base.remove(scope, keys),
      clear: (scope) => base.clear(scope),
    };
  }

  /** `base` with `list` served from the declared reads first (every other method as it is). */
  memories(base: MemoryStore): MemoryStore {
    const list = (scope: AgentScope, options: ListMemoriesOptions) =>
      (this.#take(memoriesKey(scope, options)) as Promise<MemoryPage> | undefined) ??
        base.list(scope, options);
    return new Proxy(base, {
      get: (target, prop) => {
        if (prop === "list") return list;
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }

  /** A declared read's promise, once: later calls read the store (they may follow writes). */
  #take(key: string): Promise<unknown> | undefined {
    const promise = this.#started.get(key);
    this.#started.delete(key);
    return promise;
  }
}
