/** @module The failed-auth back-off: right keys sent together are slowed, never refused. */
import assert from "node:assert/strict";
import { type Admission, AuthBackoff } from "../../lib/access/auth_backoff.ts";
import type { RateDecision, RateLimiter, RateWindow } from "../../src/ports/mod.ts";

/**
 * Ten slots in the minute's window; each decision is held until the test lets it out, so the
 * order the store's answers arrive in is the test's (as under load, or over the network).
 */
class HeldLimiter implements RateLimiter {
  used = 0;
  readonly #pending: (() => void)[] = [];

  limit(): Promise<RateDecision> {
    throw new Error("not used by the back-off");
  }

  limitAll(_id: string, windows: readonly RateWindow[]): Promise<RateDecision[]> {
    // Counted when asked (as the store's script does), answered when let out.
    const success = this.used < windows[0].requests;
    if (success) this.used++;
    const decisions = windows.map((w) => ({
      success,
      limit: w.requests,
      remaining: 0,
      reset: 60_000,
    }));
    return new Promise((resolve) => this.#pending.push(() => resolve(decisions)));
  }

  refund(): Promise<void> {
    this.used--;
    return Promise.resolve();
  }

  /** Lets out the held answers, the last asked first. */
  answerNewestFirst(): void {
    for (const answer of this.#pending.splice(0).reverse()) answer();
  }

  get waiting(): number {
    return this.#pending.length;
  }
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Runs `attempts` together, each releasing its slot (a right key); returns how each ended. */
async function rightKeysTogether(attempts: number): Promise<string[]> {
  const limiter = new HeldLimiter();
  const backoff = new AuthBackoff(limiter);
  const outcomes = Array.from({ length: attempts }, async () => {
    const admission: Admission = await backoff.admit("198.51.100.7");
    if ("blockedUntil" in admission) return "refused";
    await admission.slot.release();
    return "admitted";
  });
  // Answer until no attempt waits for the store: refused answers arrive before admitted ones.
  for (let i = 0; i < 100; i++) {
    await turn();
    if (limiter.waiting > 0) limiter.answerNewestFirst();
  }
  return await Promise.all(outcomes);
}

Deno.test("right keys sent together are all admitted when the refusals are answered first", async () => {
  // 12 attempts, 10 slots: the last two asked are refused, and their answers come back before
  // the ten that got slots, while those are still being decided.
  assert.deepEqual(await rightKeysTogether(12), Array(12).fill("admitted"));
});

Deno.test("wrong keys sent together get at most the window's slots checked", async () => {
  const limiter = new HeldLimiter();
  const backoff = new AuthBackoff(limiter);
  let checked = 0;
  const outcomes = Array.from({ length: 30 }, async () => {
    const admission = await backoff.admit("198.51.100.8");
    if ("blockedUntil" in admission) return "refused";
    checked++;
    admission.slot.keep();
    return "checked";
  });
  for (let i = 0; i < 100; i++) {
    await turn();
    if (limiter.waiting > 0) limiter.answerNewestFirst();
  }
  const ended = await Promise.all(outcomes);
  assert.equal(checked, 10);
  assert.equal(ended.filter((e) => e === "refused").length, 20);
});
