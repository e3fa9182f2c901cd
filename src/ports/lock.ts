/** @module Port: a lease-style lock with expiry, renewal and fencing, e.g. one agent stepped at a time. */

/** A held lock; pass it back to renew or release it, or as the fence of a write. */
export interface Lease {
  key: string;
  token: string;
}

/**
 * A write guarded by a lease: the store commits it only if `fence` is still held (same token,
 * not expired) at the moment of the write, checked atomically with the write itself. A holder
 * that lost its lease (it expired during a long pause and someone else took it) therefore
 * cannot write; the store throws `lease_lost` and writes nothing.
 */
export interface FencedWrite {
  /** The lease the write needs; absent for an unguarded write. */
  fence?: Lease;
}

/**
 * Mutual exclusion across processes. A lease expires by itself after `ttlMs` unless renewed, so
 * a crashed holder blocks others for at most its TTL while a live holder keeps it as long as it
 * renews. Throws `store_unavailable` when the backend fails.
 */
export interface Lock {
  /** Takes the lock if free (or expired); null when someone else holds it. Never waits. */
  acquire(key: string, ttlMs: number): Promise<Lease | null>;

  /**
   * Extends a lease this caller still holds to expire `ttlMs` from now (atomic). False, and
   * nothing changed, when it expired or was taken over: the holder has lost it.
   */
  renew(lease: Lease, ttlMs: number): Promise<boolean>;

  /** Releases a lease this caller holds; a no-op (false) if it expired or was taken over. */
  release(lease: Lease): Promise<boolean>;
}
