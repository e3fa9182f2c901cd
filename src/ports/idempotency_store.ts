/** @module Port: idempotency keys, so a retried request returns its first result. */

/** The outcome of a claim: whether this caller stored the value, and the value now stored. */
export interface Claim<T> {
  created: boolean;
  value: T;
}

/**
 * Remembers a value per key within a scope, first write wins. Used for perceive `eventId`s
 * and tick ids. Throws `store_unavailable` when the backend fails.
 */
export interface IdempotencyStore {
  /** Stores `value` under the key unless one is stored already (atomic); returns what is stored. */
  claim<T>(scope: string, key: string, value: T): Promise<Claim<T>>;

  /** The stored value, or null. */
  get<T>(scope: string, key: string): Promise<T | null>;

  /** Overwrites the value of a key (e.g. a claimed tick's final result). */
  put<T>(scope: string, key: string, value: T): Promise<void>;

  /** Forgets every key of a scope (e.g. of a deleted agent or world). */
  clear(scope: string): Promise<void>;
}
