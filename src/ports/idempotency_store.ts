/** @module Port: idempotency keys, so a retried request returns its first result. */

/** The outcome of a claim: whether this caller stored the value, and the value now stored. */
export interface Claim<T> {
  created: boolean;
  value: T;
}

/** How long a stored value must be kept. */
export interface KeepOptions {
  /**
   * After this many ms the value may be forgotten (it is kept at least that long). A backend
   * may keep it a while longer (Deno KV deletes expired keys lazily), so a caller never relies
   * on it being gone. @default kept until its scope is cleared
   */
  ttlMs?: number;
}

/** A value to keep under a key, and how long. */
export interface KeepValue<T> extends KeepOptions {
  value: T;
}

/**
 * Remembers a value per key within a scope, first write wins. Used for perceive `eventId`s
 * and tick ids. Throws `store_unavailable` when the backend fails. As every storage port (see
 * `DocumentStore`): the address first (`scope, key`, as `get` takes it), then one object with
 * the value and how long to keep it.
 */
export interface IdempotencyStore {
  /** Stores `write.value` under the key unless one is stored already (atomic); returns what is stored. */
  claim<T>(scope: string, key: string, write: KeepValue<T>): Promise<Claim<T>>;

  /** The stored value, or null. */
  get<T>(scope: string, key: string): Promise<T | null>;

  /** Overwrites the value of a key (e.g. a claimed tick's final result), and its time to live. */
  put<T>(scope: string, key: string, write: KeepValue<T>): Promise<void>;

  /**
   * Overwrites the values of many keys of a scope (as `put` each), in as few requests or commits
   * as the backend allows: how an import stores its event claims without a round trip each.
   */
  putMany<T>(
    scope: string,
    writes: readonly { key: string; value: T }[],
    options?: KeepOptions,
  ): Promise<void>;

  /** Forgets these keys of a scope (absent ones are ignored), in one request where it can. */
  remove(scope: string, keys: readonly string[]): Promise<void>;

  /**
   * Forgets every key of a scope (e.g. of a deleted agent or world). It may have to scan the
   * store: to drop keys one knows, use `remove`.
   */
  clear(scope: string): Promise<void>;
}
