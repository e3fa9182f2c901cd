/** @module Port: a lease-style lock with expiry, e.g. one agent stepped at a time. */

/** A held lock; pass it back to release. */
export interface Lease {
  key: string;
  token: string;
}

/**
 * Mutual exclusion across processes. A lease expires by itself after `ttlMs` so a crashed holder
 * never blocks forever. Throws `store_unavailable` when the backend fails.
 */
export interface Lock {
  /** Takes the lock if free (or expired); null when someone else holds it. Never waits. */
  acquire(key: string, ttlMs: number): Promise<Lease | null>;

  /** Releases a lease this caller holds; a no-op (false) if it expired or was taken over. */
  release(lease: Lease): Promise<boolean>;
}
