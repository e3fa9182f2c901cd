/**
 * @module The embedded RateLimiter: `@upstash/ratelimit`'s sliding window on Deno KV.
 *
 * A counter per identifier and fixed window, `["ratelimit", identifier, window index]`, expiring
 * after two windows. A request counts when `floor(previous × (1 − elapsed/window)) + current` is
 * under the limit; the check and the increment commit together (an atomic check on the current
 * counter's versionstamp), retried when another request got in between. A refund decrements the
 * current counter the same way.
 */
import type { RateDecision, RateLimiter, RateWindow } from "../../src/ports/mod.ts";
import { assertKeySize, guard } from "./_kv_support.ts";

/** Configuration of {@linkcode KvRateLimiter}. */
export interface KvRateLimiterOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
  /** Wall clock in ms; injectable for tests. @default Date.now */
  now?: () => number;
}

/** Sliding-window rate limits in Deno KV. */
export class KvRateLimiter implements RateLimiter {
  readonly #kv: Deno.Kv;
  readonly #now: () => number;

  constructor(options: KvRateLimiterOptions) {
    this.#kv = options.kv;
    this.#now = options.now ?? Date.now;
  }

  limit(identifier: string, window: RateWindow): Promise<RateDecision> {
    return guard("count a request against its rate limit", async () => {
      // Each lost race is another request's commit, and a window holds only `requests` of them
      // before the check refuses without racing: a burst of right keys at once (the failed-auth
      // back-off counts every attempt) must not be refused for losing a handful.
      for (let attempt = 0; attempt < 100; attempt++) {
        const state = await this.#read(identifier, window);
        if (state.used >= window.requests) return this.#decision(state, window, false);
        const ok = await this.#kv.atomic()
          .check(state.currentEntry)
          .set(state.currentEntry.key, state.current + 1, { expireIn: window.windowMs * 2 + 1000 })
          .commit();
        if (ok.ok) {
          return this.#decision({ ...state, used: state.used + 1 }, window, true);
        }
      }
      // A hundred lost races in a row: the identifier is hammered, so refusing is the safe answer.
      return this.#decision(
        { ...(await this.#read(identifier, window)), used: window.requests },
        window,
        false,
      );
    });
  }

  refund(identifier: string, window: RateWindow): Promise<void> {
    return guard("give back a request counted against its rate limit", async () => {
      // Not refused when hammered, like limit(): a lost refund would keep a slot taken. The
      // counter may go below zero when the refund lands in the next window, as Redis's INCRBY
      // -1 does in @upstash/ratelimit.
      for (let attempt = 0; attempt < 100; attempt++) {
        const state = await this.#read(identifier, window);
        const ok = await this.#kv.atomic()
          .check(state.currentEntry)
          .set(state.currentEntry.key, state.current - 1, { expireIn: window.windowMs * 2 + 1000 })
          .commit();
        if (ok.ok) return;
      }
      throw new Error("a hundred lost races in a row");
    });
  }

  async #read(identifier: string, window: RateWindow) {
    const now = this.#now();
    const index = Math.floor(now / window.windowMs);
    const currentKey: Deno.KvKey = ["ratelimit", identifier, index];
    assertKeySize(currentKey, "rate limit identifier");
    const [currentEntry, previousEntry] = await this.#kv.getMany<[number, number]>([
      currentKey,
      ["ratelimit", identifier, index - 1],
    ]);
    const current = currentEntry.value ?? 0;
    const overlap = 1 - (now % window.windowMs) / window.windowMs;
    const used = Math.floor((previousEntry.value ?? 0) * overlap) + current;
    return { currentEntry, current, used, reset: (index + 1) * window.windowMs };
  }

  #decision(
    state: { used: number; reset: number },
    window: RateWindow,
    success: boolean,
  ): RateDecision {
    return {
      success,
      limit: window.requests,
      remaining: Math.max(0, window.requests - state.used),
      reset: state.reset,
    };
  }
}
