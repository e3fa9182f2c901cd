/** @module Runs work while holding a named lease, waiting a bounded time for it to come free. */
import type { Deps } from "../deps.ts";

/** Options for {@linkcode withLease}. */
export interface LeaseOptions {
  /** How long the lease lives if its holder dies. */
  ttlMs: number;
  /** How long to wait for a busy lease before giving up; 0 tries once. */
  waitMs: number;
  /** The error to throw when the lease stayed busy. */
  busy: () => Error;
}

const POLL_MS = 20;

/**
 * Runs `work` while holding the lease `key`, then releases it (also when `work` throws).
 * Polls with `deps.sleep` while another holder has it.
 * @throws what `options.busy` returns when the lease stays busy longer than `waitMs`;
 * `store_unavailable` from the lock.
 */
export async function withLease<T>(
  deps: Pick<Deps, "storage" | "sleep">,
  key: string,
  work: () => Promise<T>,
  options: LeaseOptions,
): Promise<T> {
  const attempts = 1 + Math.max(0, Math.ceil(options.waitMs / POLL_MS));
  for (let attempt = 0; attempt < attempts; attempt++) {
    const lease = await deps.storage.locks.acquire(key, options.ttlMs);
    if (lease) {
      try {
        return await work();
      } finally {
        await deps.storage.locks.release(lease);
      }
    }
    if (attempt + 1 < attempts) await deps.sleep(POLL_MS);
  }
  throw options.busy();
}
