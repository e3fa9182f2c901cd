/** @module Contract cases every RateLimiter adapter must pass (the sliding-window algorithm). */
import assert from "node:assert/strict";
import { type ContractCases, suffix } from "./_contract_support.ts";

/** Registers the RateLimiter cases. */
export function rateLimiterContract(cases: ContractCases): void {
  cases.add("RateLimiter.limit() admits `requests` per window, then refuses", async (s) => {
    const id = `client-${suffix()}`;
    const window = { requests: 3, windowMs: 60_000 };
    const decisions = [];
    for (let i = 0; i < 5; i++) decisions.push(await s.rateLimits.limit(id, window));
    assert.deepEqual(decisions.map((d) => d.success), [true, true, true, false, false]);
    assert.deepEqual(decisions.map((d) => d.remaining), [2, 1, 0, 0, 0]);
    for (const d of decisions) {
      assert.equal(d.limit, 3);
      assert.ok(d.reset > Date.now() && d.reset <= Date.now() + 60_000, "reset ends the window");
    }
  });

  cases.add("RateLimiter.limit() keeps identifiers and windows apart", async (s) => {
    const a = `a:${suffix()}/*?`;
    const b = `b:${suffix()}`;
    const window = { requests: 1, windowMs: 60_000 };
    assert.equal((await s.rateLimits.limit(a, window)).success, true);
    assert.equal((await s.rateLimits.limit(a, window)).success, false);
    assert.equal((await s.rateLimits.limit(b, window)).success, true);
    assert.equal((await s.rateLimits.limit(a, { requests: 2, windowMs: 60_000 })).success, true);
  });

  cases.add("RateLimiter.limit() admits exactly `requests` of concurrent calls", async (s) => {
    const id = `burst-${suffix()}`;
    const window = { requests: 5, windowMs: 60_000 };
    const decisions = await Promise.all(
      Array.from({ length: 12 }, () => s.rateLimits.limit(id, window)),
    );
    assert.equal(decisions.filter((d) => d.success).length, 5);
  });

  cases.add("RateLimiter.limitAll() counts in every window or in none", async (s) => {
    const id = `all-${suffix()}`;
    const minute = { requests: 2, windowMs: 60_000 };
    const hour = { requests: 3, windowMs: 3_600_000 };
    const successes = [];
    for (let i = 0; i < 4; i++) {
      successes.push((await s.rateLimits.limitAll(id, [minute, hour])).map((d) => d.success));
    }
    assert.deepEqual(successes, [[true, true], [true, true], [false, true], [false, true]]);
    // The refused calls counted nothing in the hour: one more fits there.
    assert.equal((await s.rateLimits.limit(id, hour)).success, true);
    assert.equal((await s.rateLimits.limit(id, hour)).success, false);
  });

  cases.add("RateLimiter.refund() gives a counted request back in each window", async (s) => {
    const id = `refund-${suffix()}`;
    const windows = [{ requests: 2, windowMs: 60_000 }, { requests: 5, windowMs: 3_600_000 }];
    await s.rateLimits.limitAll(id, windows);
    await s.rateLimits.limitAll(id, windows);
    assert.equal((await s.rateLimits.limitAll(id, windows))[0].success, false);
    await s.rateLimits.refund(id, windows);
    const again = await s.rateLimits.limitAll(id, windows);
    assert.ok(again.every((d) => d.success), "the refunded slot is free again");
    assert.deepEqual(again.map((d) => d.remaining), [0, 3]);
  });

  cases.add("RateLimiter.refund() of concurrent calls frees exactly as many slots", async (s) => {
    const id = `refund-burst-${suffix()}`;
    const windows = [{ requests: 5, windowMs: 60_000 }];
    const first = await Promise.all(
      Array.from({ length: 5 }, () => s.rateLimits.limitAll(id, windows)),
    );
    assert.ok(first.every(([d]) => d.success));
    await Promise.all(Array.from({ length: 3 }, () => s.rateLimits.refund(id, windows)));
    const second = await Promise.all(
      Array.from({ length: 8 }, () => s.rateLimits.limitAll(id, windows)),
    );
    assert.equal(second.filter(([d]) => d.success).length, 3);
  });

  cases.add("RateLimiter.limit() admits again once the window has slid past", async (s) => {
    const id = `slide-${suffix()}`;
    const window = { requests: 1, windowMs: 400 };
    // Real time: the window slides by the store's clock, which the test cannot move.
    // Start just after a window boundary so the wait below crosses at most two boundaries.
    await new Promise((r) => setTimeout(r, window.windowMs - (Date.now() % window.windowMs) + 5));
    assert.equal((await s.rateLimits.limit(id, window)).success, true);
    assert.equal((await s.rateLimits.limit(id, window)).success, false);
    // Two windows later the previous window no longer overlaps.
    await new Promise((r) => setTimeout(r, 2 * window.windowMs));
    assert.equal((await s.rateLimits.limit(id, window)).success, true);
  });
}
