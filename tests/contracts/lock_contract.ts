/** @module Contract cases every Lock adapter must pass. */
import assert from "node:assert/strict";
import { type ContractCases, delay, suffix } from "./_contract_support.ts";

/** Long enough that no case waits for it. */
const LONG_TTL = 30_000;
/** Short enough to wait for; cases wait well past it. */
const SHORT_TTL = 200;

function lockKey(): string {
  return `agent-step:${suffix()}`;
}

/** Registers the Lock cases. */
export function lockContract(cases: ContractCases): void {
  cases.add("Lock.acquire() grants a free key and refuses it while held", async (s) => {
    const key = lockKey();
    const lease = await s.locks.acquire(key, LONG_TTL);
    assert.ok(lease !== null);
    assert.equal(lease.key, key);
    assert.equal(typeof lease.token, "string");
    assert.ok(lease.token.length > 0);
    assert.equal(await s.locks.acquire(key, LONG_TTL), null);
    assert.equal(await s.locks.acquire(key, LONG_TTL), null);
    assert.equal(await s.locks.release(lease), true);
  });

  cases.add("Lock.acquire() grants exactly one of 10 concurrent callers", async (s) => {
    const key = lockKey();
    const leases = await Promise.all(
      Array.from({ length: 10 }, () => s.locks.acquire(key, LONG_TTL)),
    );
    const held = leases.filter((l) => l !== null);
    assert.equal(held.length, 1);
    assert.equal(await s.locks.release(held[0]!), true);
  });

  cases.add("Lock.release() frees the key for the next caller", async (s) => {
    const key = lockKey();
    const first = await s.locks.acquire(key, LONG_TTL);
    assert.ok(first);
    assert.equal(await s.locks.release(first), true);
    assert.equal(await s.locks.release(first), false, "A second release is a no-op");
    const second = await s.locks.acquire(key, LONG_TTL);
    assert.ok(second);
    assert.notEqual(second.token, first.token, "Each lease gets its own token");
    assert.equal(await s.locks.release(first), false, "An old lease cannot free a new holder");
    assert.equal(await s.locks.acquire(key, LONG_TTL), null);
    assert.equal(await s.locks.release(second), true);
  });

  cases.add("Lock.release() by a non-holder returns false and keeps the lock", async (s) => {
    const key = lockKey();
    const lease = await s.locks.acquire(key, LONG_TTL);
    assert.ok(lease);
    assert.equal(await s.locks.release({ key, token: "not-the-token" }), false);
    assert.equal(await s.locks.release({ key: lockKey(), token: lease.token }), false);
    assert.equal(await s.locks.acquire(key, LONG_TTL), null, "Still held");
    assert.equal(await s.locks.release(lease), true);
  });

  cases.add("Lock.acquire() takes over an expired lease", async (s) => {
    const key = lockKey();
    const crashed = await s.locks.acquire(key, SHORT_TTL);
    assert.ok(crashed);
    assert.equal(await s.locks.acquire(key, LONG_TTL), null);
    await delay(SHORT_TTL + 300);
    const next = await s.locks.acquire(key, LONG_TTL);
    assert.ok(next, "An expired lease no longer blocks");
    assert.equal(await s.locks.release(crashed), false, "The expired holder cannot release");
    assert.equal(await s.locks.acquire(key, LONG_TTL), null, "The new holder keeps the lock");
    assert.equal(await s.locks.release(next), true);
  });

  cases.add("Lock.release() of an expired lease returns false", async (s) => {
    const key = lockKey();
    const lease = await s.locks.acquire(key, SHORT_TTL);
    assert.ok(lease);
    await delay(SHORT_TTL + 300);
    assert.equal(await s.locks.release(lease), false);
    const next = await s.locks.acquire(key, LONG_TTL);
    assert.ok(next);
    assert.equal(await s.locks.release(next), true);
  });

  cases.add("Lock keeps different keys independent", async (s) => {
    const a = await s.locks.acquire(lockKey(), LONG_TTL);
    const b = await s.locks.acquire(lockKey(), LONG_TTL);
    assert.ok(a && b);
    assert.equal(await s.locks.release(a), true);
    assert.equal(await s.locks.release(b), true);
  });
}
