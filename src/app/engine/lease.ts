/**
 * @module Runs work while holding a named lease: waits a bounded time for it to come free, renews
 * it while the work runs (so a slow model never lets it expire under a live holder), and tells
 * the work when it was lost anyway, so fenced writes refuse and the work stops.
 */
import type { Deps, Lease } from "../../ports/mod.ts";
import { LeaseLostError } from "../../domain/mod.ts";

/** Options for {@linkcode withLease}. */
export interface LeaseOptions {
  /**
   * How long the lease outlives a holder that stopped renewing it (crashed): the lease is
   * renewed every third of it while the work runs.
   */
  ttlMs: number;
  /** How long to wait for a busy lease before giving up; 0 tries once. */
  waitMs: number;
  /** The error to throw when the lease stayed busy. */
  busy: () => Error;
}

/** The lease {@linkcode withLease} takes: its key, and how it is held and waited for. */
export interface LeaseRequest extends LeaseOptions {
  key: string;
}

/** A lease held by running work. */
export interface HeldLease {
  /** The lease: pass it as the `fence` of every write that must not outlive it. */
  readonly lease: Lease;
  /** Aborted (with a {@linkcode LeaseLostError}) when a renewal found the lease lost. */
  readonly signal: AbortSignal;
  /** Throws the {@linkcode LeaseLostError} when the lease is known to be lost. */
  assertHeld(): void;
}

/** The first poll interval while waiting; it grows to {@linkcode MAX_POLL_MS}. */
const FIRST_POLL_MS = 15;
/** Waiting on a long holder polls at most this often (each poll is a store call). */
const MAX_POLL_MS = 250;

/**
 * Runs `work` while holding the lease `request.key`, renewing it every `ttlMs / 3`, then
 * releases it (also when `work` throws). Polls with `deps.sleep` while another holder has it.
 * When a renewal finds the lease lost (it expired during a long stall and someone else took
 * it), `held.signal` aborts; fenced writes refuse by themselves. As `withAgent`, the request
 * comes before the work.
 *
 * @throws what `options.busy` returns when the lease stays busy longer than `waitMs`;
 * `store_unavailable` from the lock.
 */
export async function withLease<T>(
  deps: Pick<Deps, "storage" | "sleep">,
  request: LeaseRequest,
  work: (held: HeldLease) => Promise<T>,
): Promise<T> {
  const { key, ...options } = request;
  const lease = await acquireWithin(deps, key, options);
  const stop = new AbortController();
  const lost = new AbortController();
  const held: HeldLease = {
    lease,
    signal: lost.signal,
    assertHeld() {
      if (lost.signal.aborted) throw lost.signal.reason;
    },
  };
  const renewing = keepRenewed(deps, lease, { ttlMs: options.ttlMs, stop: stop.signal, lost });
  try {
    return await work(held);
  } finally {
    stop.abort("done"); // a reason of our own: a default one builds a DOMException
    await renewing;
    if (!lost.signal.aborted) await deps.storage.locks.release(lease).catch(() => false);
  }
}

/**
 * Takes the lease `key`, polling with `deps.sleep` while another holder has it.
 * @throws what `options.busy` returns when it stays busy longer than `options.waitMs`.
 */
export async function acquireWithin(
  deps: Pick<Deps, "storage" | "sleep">,
  key: string,
  options: LeaseOptions,
): Promise<Lease> {
  let waited = 0;
  for (let attempt = 0;; attempt++) {
    const lease = await deps.storage.locks.acquire(key, options.ttlMs);
    if (lease) return lease;
    if (waited >= options.waitMs) throw options.busy();
    // Back off, with a deterministic spread per attempt so waiters do not poll in step.
    const pause = Math.min(MAX_POLL_MS, FIRST_POLL_MS * 1.5 ** attempt) + (attempt % 5) * 3;
    const step = Math.min(pause, options.waitMs - waited);
    await deps.sleep(step);
    waited += step;
  }
}

/**
 * Renews the lease every third of `renewal.ttlMs` until `renewal.stop` aborts. A renewal that
 * finds the lease gone aborts `renewal.lost`; renewals that fail (the store is down) are retried
 * until a whole TTL has passed without one succeeding, after which the lease counts as lost too.
 */
export async function keepRenewed(
  deps: Pick<Deps, "storage" | "sleep">,
  lease: Lease,
  renewal: { ttlMs: number; stop: AbortSignal; lost: AbortController },
): Promise<void> {
  const { ttlMs, ...signals } = renewal;
  const every = Math.max(1, Math.floor(ttlMs / 3));
  let failingMs = 0;
  while (!signals.stop.aborted) {
    await deps.sleep(every, signals.stop);
    if (signals.stop.aborted) return;
    let renewed: boolean | null;
    try {
      renewed = await deps.storage.locks.renew(lease, ttlMs);
    } catch {
      renewed = null;
    }
    if (renewed === true) failingMs = 0;
    else if (renewed === false || (failingMs += every) >= ttlMs) {
      signals.lost.abort(new LeaseLostError(lease.key));
      return;
    }
  }
}
