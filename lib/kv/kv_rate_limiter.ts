/**
 * @module The embedded RateLimiter: `@upstash/ratelimit`'s sliding window on Deno KV.
 *
 * A counter per identifier and fixed window, `["ratelimit", identifier, window index]`, expiring
 * after two windows. A request counts when `floor(previous × (1 − elapsed/window)) + current` is
 * under the limit; the check and the increment commit together (an atomic check on the current
 * counter's versionstamp), retried when another request got in between. Several windows are
 * read together and counted in one commit; a refund decrements their current counters the same
 * way.
 */
import type { RateDecision, RateLimiter, RateWindow } from "../../src/ports/mod.ts";
import { assertKeySize, guard } from "./_kv_support.ts";

/** One window's counters as read. */
interface WindowState {
  currentEntry: Deno.KvEntryMaybe<number>;
  current: number;
  used: number;
  reset: number;
}

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

  async limit(identifier: string, window: RateWindow): Promise<RateDecision> {
    return (await this.limitAll(identifier, [window]))[0];
  }

  limitAll(identifier: string, windows: readonly RateWindow[]): Promise<RateDecision[]> {
    return guard("count a request against its rate limit", async () => {
      // Each lost race is another request's commit, and a window holds only `requests` of them
      // before the check refuses without racing: a burst of right keys at once (the failed-auth
      // back-off counts every attempt) must not be refused for losing a handful.
      for (let attempt = 0; attempt < 100; attempt++) {
        const states = await this.#read(identifier, windows);
        const room = states.map((state, i) => state.used < windows[i].requests);
        if (!room.every(Boolean)) {
          return states.map((state, i) => this.#decision(state, windows[i], room[i]));
        }
        if (await this.#add(states, { windows, by: 1 })) {
          return states.map((state, i) =>
            this.#decision({ ...state, used: state.used + 1 }, windows[i], true)
          );
        }
      }
      // A hundred lost races in a row: the identifier is hammered, so refusing is the safe answer.
      const states = await this.#read(identifier, windows);
      return states.map((state, i) =>
        this.#decision({ ...state, used: windows[i].requests }, windows[i], false)
      );
    });
  }

  refund(identifier: string, windows: readonly RateWindow[]): Promise<void> {
    return guard("give back a request counted against its rate limit", async () => {
      // Not refused when hammered, like limitAll(): a lost refund would keep a slot taken. A
      // counter may go below zero when the refund lands in the next window, as Redis's INCRBY
      // -1 does in @upstash/ratelimit.
      for (let attempt = 0; attempt < 100; attempt++) {
        if (await this.#add(await this.#read(identifier, windows), { windows, by: -1 })) return;
      }
      throw new Error("a hundred lost races in a row");
    });
  }

  /** Adds `by` to each window's current counter in one commit; false when another got in. */
  async #add(
    states: readonly WindowState[],
    { windows, by }: { windows: readonly RateWindow[]; by: number },
  ): Promise<boolean> {
    const atomic = this.#kv.atomic();
    states.forEach((state, i) => {
      atomic.check(state.currentEntry).set(state.currentEntry.key, state.current + by, {
        expireIn: windows[i].windowMs * 2 + 1000,
      });
    });
    return (await atomic.commit()).ok;
  }

  /** Each window's counters for `identifier`, read together. */
  async #read(identifier: string, windows: readonly RateWindow[]): Promise<WindowState[]> {
    const now = this.#now();
    const keys = windows.flatMap((window) => {
      const index = Math.floor(now / window.windowMs);
      const current: Deno.KvKey = ["ratelimit", identifier, index];
      assertKeySize(current, "rate limit identifier");
      return [current, ["ratelimit", identifier, index - 1]];
    });
    const entries = await this.#kv.getMany<number[]>(keys);
    return windows.map((window, i) => {
      const [currentEntry, previousEntry] = [entries[2 * i], entries[2 * i + 1]];
      const current = currentEntry.value ?? 0;
      const overlap = 1 - (now % window.windowMs) / window.windowMs;
      const used = Math.floor((previousEntry.value ?? 0) * overlap) + current;
      const reset = (Math.floor(now / window.windowMs) + 1) * window.windowMs;
      return { currentEntry, current, used, reset };
    });
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
