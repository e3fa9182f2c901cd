/**
 * @module The embedded Lock: leases in Deno KV, each with a random token and an expiry time.
 *
 * `["lock", key]` → `{ token, expiresAt }` (wall-clock ms). Expiry is decided by `expiresAt`,
 * not by KV's `expireIn` (which only removes a key some time *after* it expires; it is set too,
 * to clean up). Acquire and release are read, then an atomic write checked against the
 * versionstamp that was read, so two callers can never both take or both free a lease.
 */
import { LeaseLostError, SimulacraError } from "../../src/domain/mod.ts";
import type { Lease, Lock } from "../../src/ports/mod.ts";
import { assertKeySize, guard } from "./_kv_support.ts";

/** Configuration of {@linkcode KvLock}. */
export interface KvLockOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
  /**
   * The wall clock in milliseconds.
   * @default Date.now
   */
  now?: () => number;
}

interface StoredLease {
  token: string;
  expiresAt: number;
}

/** Rounds of read-then-check before giving up on a key that keeps changing. */
const ATTEMPTS = 8;

/** Lease-style locks in Deno KV. */
export class KvLock implements Lock {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;

  constructor(options: KvLockOptions) {
    this.#kv = options.kv;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Takes the lock if it is free or its lease expired; null when someone else holds it.
   *
   * @throws {SimulacraError} `invalid_request` when `ttlMs` is not a positive number.
   */
  async acquire(key: string, ttlMs: number): Promise<Lease | null> {
    assertTtl(ttlMs);
    const kvKey = ["lock", key];
    assertKeySize(kvKey, "lock key");
    return await guard("acquire a lock", async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const entry = await this.#kv.get<StoredLease>(kvKey);
        const now = this.#now();
        if (entry.value !== null && entry.value.expiresAt > now) return null;
        const lease = { token: crypto.randomUUID(), expiresAt: now + ttlMs };
        const result = await this.#kv.atomic()
          .check(entry)
          .set(kvKey, lease, { expireIn: Math.ceil(ttlMs) })
          .commit();
        if (result.ok) return { key, token: lease.token };
        // Someone else wrote the key since we read it: look again.
      }
      return null;
    });
  }

  /**
   * Extends a lease this caller still holds to expire `ttlMs` from now; false when it expired or
   * was taken over (nothing changed).
   *
   * @throws {SimulacraError} `invalid_request` when `ttlMs` is not a positive number.
   */
  async renew(lease: Lease, ttlMs: number): Promise<boolean> {
    assertTtl(ttlMs);
    const kvKey = ["lock", lease.key];
    assertKeySize(kvKey, "lock key");
    return await guard("renew a lock", async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const entry = await this.#kv.get<StoredLease>(kvKey);
        const now = this.#now();
        const held = entry.value;
        if (held === null || held.token !== lease.token || held.expiresAt <= now) return false;
        const renewed = { token: lease.token, expiresAt: now + ttlMs };
        const result = await this.#kv.atomic()
          .check(entry)
          .set(kvKey, renewed, { expireIn: Math.ceil(ttlMs) })
          .commit();
        if (result.ok) return true;
      }
      return false;
    });
  }

  /** Frees a lease this caller holds; false when it expired, was taken over or is not ours. */
  async release(lease: Lease): Promise<boolean> {
    const kvKey = ["lock", lease.key];
    assertKeySize(kvKey, "lock key");
    return await guard("release a lock", async () => {
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const entry = await this.#kv.get<StoredLease>(kvKey);
        const held = entry.value;
        if (held === null || held.token !== lease.token || held.expiresAt <= this.#now()) {
          return false;
        }
        if ((await this.#kv.atomic().check(entry).delete(kvKey).commit()).ok) return true;
      }
      return false;
    });
  }
}

function assertTtl(ttlMs: number): void {
  if (!(ttlMs > 0) || !Number.isFinite(ttlMs)) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot hold a lock for ${ttlMs} ms: use a positive ttl`,
    );
  }
}

/**
 * The check that fences a KV write with `fence`: read the lease now, and add the returned check
 * to the write's atomic operation, so the write commits only if nobody touched the lease since.
 * A renewal by the holder itself also fails that check: callers re-read and retry then.
 *
 * @throws {LeaseLostError} `conflict` when the lease is no longer held (expired or taken over).
 */
export async function leaseCheck(
  kv: Deno.Kv,
  fence: Lease,
  now: () => number = Date.now,
): Promise<Deno.AtomicCheck> {
  const check = await heldLease(kv, fence, now);
  if (check === null) throw new LeaseLostError(fence.key);
  return check;
}

/**
 * The check of a lease this caller still holds (same token, not expired), to add to an atomic
 * operation that relies on it; null when it is no longer held.
 */
export async function heldLease(
  kv: Deno.Kv,
  lease: Lease,
  now: () => number = Date.now,
): Promise<Deno.AtomicCheck | null> {
  const entry = await kv.get<StoredLease>(["lock", lease.key]);
  const held = entry.value;
  if (held === null || held.token !== lease.token || held.expiresAt <= now()) return null;
  return { key: entry.key, versionstamp: entry.versionstamp };
}
