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
import { assertKeySize, getAll, guard } from "./_kv_support.ts";

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

/** Lease writes remembered for {@linkcode KvLock.knownEntry} (all forgotten when full). */
const KNOWN_LEASES = 10_000;

/** Lease-style locks in Deno KV. */
export class KvLock implements Lock {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;
  /**
   * The leases this lock wrote last, as its commits left them (by lock key): a unit of work's
   * commit checks against these instead of reading the leases again (`knownEntry`).
   */
  readonly #written = new Map<string, StoredLease & { versionstamp: string }>();

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
        if (result.ok) {
          this.#wrote(key, { ...lease, versionstamp: result.versionstamp });
          return { key, token: lease.token };
        }
        // Someone else wrote the key since we read it: look again.
      }
      return null;
    });
  }

  /**
   * {@linkcode acquire} of several keys, each taken only if free: one read and one atomic write
   * for all the free ones (a unit of work's leases), or one by one when a key is asked twice or
   * another caller wrote one of them between the read and the write.
   */
  async acquireMany(
    requests: readonly { key: string; ttlMs: number }[],
  ): Promise<(Lease | null)[]> {
    if (!oneWriteEach(requests)) return await this.#oneByOne(requests);
    assertRequests(requests);
    const entries = await guard("acquire locks", () => getAll(this.#kv, requests.map(lockKey)));
    return await this.acquireRead(requests, entries);
  }

  /**
   * {@linkcode acquireMany} with the keys' entries already read (at {@linkcode lockKey}, in the
   * requests' order), so a caller can read them with other keys in one call: one atomic write
   * for the free ones, or one by one as `acquireMany` falls back.
   */
  async acquireRead(
    requests: readonly { key: string; ttlMs: number }[],
    entries: readonly Deno.KvEntryMaybe<unknown>[],
  ): Promise<(Lease | null)[]> {
    if (requests.length === 0) return [];
    if (!oneWriteEach(requests)) return await this.#oneByOne(requests);
    assertRequests(requests);
    const taken = await guard("acquire locks", async () => {
      const now = this.#now();
      const op = this.#kv.atomic();
      const stored = requests.map(({ ttlMs }, i) => {
        const held = entries[i].value as StoredLease | null;
        if (held !== null && held.expiresAt > now) return null;
        const lease = { token: crypto.randomUUID(), expiresAt: now + ttlMs };
        op.check(entries[i]).set(entries[i].key, lease, { expireIn: Math.ceil(ttlMs) });
        return lease;
      });
      const leases = stored.map((lease, i) =>
        lease && { key: requests[i].key, token: lease.token }
      );
      // None free: nothing to write (a commit of only checks would be a KV call for nothing).
      if (leases.every((lease) => lease === null)) return leases;
      const result = await op.commit();
      if (!result.ok) return null;
      stored.forEach((lease, i) => {
        if (lease) this.#wrote(requests[i].key, { ...lease, versionstamp: result.versionstamp });
      });
      return leases;
    });
    return taken ?? await this.#oneByOne(requests);
  }

  /**
   * The entry of a lease as this lock's last write of it left it (null when this lock did not
   * write it last, or wrote it for another token). Whether it is still so is for the caller's
   * atomic check to find: a commit checked against it fails if anyone wrote the lease since.
   */
  knownEntry(lease: Lease): Deno.KvEntry<StoredLease> | null {
    const known = this.#written.get(lease.key);
    if (known === undefined || known.token !== lease.token) return null;
    const { versionstamp, token, expiresAt } = known;
    return { key: leaseKey(lease), value: { token, expiresAt }, versionstamp };
  }

  /** Forgets the last write of a lease (it was released by another atomic operation). */
  forget(lease: Lease): void {
    if (this.#written.get(lease.key)?.token === lease.token) this.#written.delete(lease.key);
  }

  #wrote(key: string, lease: StoredLease & { versionstamp: string }): void {
    // Leases lost without a release are never forgotten one by one: start over when many.
    if (this.#written.size >= KNOWN_LEASES) this.#written.clear();
    this.#written.set(key, lease);
  }

  #oneByOne(requests: readonly { key: string; ttlMs: number }[]): Promise<(Lease | null)[]> {
    return Promise.all(requests.map((r) => this.acquire(r.key, r.ttlMs)));
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
        if (result.ok) {
          this.#wrote(lease.key, { ...renewed, versionstamp: result.versionstamp });
          return true;
        }
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
        if ((await this.#kv.atomic().check(entry).delete(kvKey).commit()).ok) {
          this.forget(lease);
          return true;
        }
      }
      return false;
    });
  }
}

/** Whether no key is asked twice (one atomic write cannot set a key twice). */
function oneWriteEach(requests: readonly { key: string }[]): boolean {
  return new Set(requests.map((r) => r.key)).size === requests.length;
}

function assertRequests(requests: readonly { key: string; ttlMs: number }[]): void {
  for (const { key, ttlMs } of requests) {
    assertTtl(ttlMs);
    assertKeySize(["lock", key], "lock key");
  }
}

/** The KV key of a lease request's lock. */
export function lockKey(request: { key: string }): Deno.KvKey {
  return ["lock", request.key];
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
  return heldCheck(await kv.get(leaseKey(lease)), lease, now);
}

/** The KV key of a lease. */
export function leaseKey(lease: Lease): Deno.KvKey {
  return ["lock", lease.key];
}

/** {@linkcode heldLease} of an entry already read at {@linkcode leaseKey}. */
export function heldCheck(
  entry: Deno.KvEntryMaybe<unknown>,
  lease: Lease,
  now: () => number = Date.now,
): Deno.AtomicCheck | null {
  const held = entry.value as StoredLease | null;
  if (held === null || held.token !== lease.token || held.expiresAt <= now()) return null;
  return { key: entry.key, versionstamp: entry.versionstamp };
}
