/**
 * @module The hosted RateLimiter: `@upstash/ratelimit`'s sliding window on the store's Redis.
 *
 * Added as a dependency because it is Upstash's own, well-kept implementation of the algorithm
 * (one atomic Lua script per request, keys that expire by themselves) that the embedded
 * backend mirrors in `lib/kv/kv_rate_limiter.ts`.
 */
import { Ratelimit } from "@upstash/ratelimit";
import type { Redis } from "@upstash/redis";
import type { RateDecision, RateLimiter, RateWindow } from "../../src/ports/mod.ts";
import { RedisKeys } from "./layout.ts";
import { redisCall } from "./redis_calls.ts";

/** Configuration of {@linkcode UpstashRateLimiter}. */
export interface UpstashRateLimiterConfig {
  redis: Redis;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
}

/**
 * One `Ratelimit` per distinct window (keys differ in their limits), built on first use. No
 * ephemeral in-process cache: a second instance must see the same counts, and analytics are
 * off (no extra writes). Throws `store_unavailable` when Upstash fails.
 */
export class UpstashRateLimiter implements RateLimiter {
  readonly #redis: Redis;
  readonly #keys: RedisKeys;
  readonly #limiters = new Map<string, Ratelimit>();

  constructor(config: UpstashRateLimiterConfig) {
    this.#redis = config.redis;
    this.#keys = new RedisKeys(config.keyPrefix);
  }

  limit(identifier: string, window: RateWindow): Promise<RateDecision> {
    return redisCall("count a request against its rate limit", async () => {
      const r = await this.#limiter(window).limit(encodeURIComponent(identifier));
      return { success: r.success, limit: r.limit, remaining: r.remaining, reset: r.reset };
    });
  }

  async limitAll(identifier: string, windows: readonly RateWindow[]): Promise<RateDecision[]> {
    // One script per window (the client pipelines them into one request); when any window is
    // full, those that counted the request give it back. Not one atomic step as on Deno KV: a
    // call at the same moment may see those counts for a round trip and be refused, never
    // admitted past a limit.
    const decisions = await Promise.all(windows.map((w) => this.limit(identifier, w)));
    if (decisions.some((d) => !d.success)) {
      await this.refund(identifier, windows.filter((_, i) => decisions[i].success));
    }
    return decisions;
  }

  refund(identifier: string, windows: readonly RateWindow[]): Promise<void> {
    return redisCall("give back a request counted against its rate limit", async () => {
      // A negative rate is @upstash/ratelimit's refund: INCRBY -1 on the current window, with
      // no limit check.
      await Promise.all(
        windows.map((w) => this.#limiter(w).limit(encodeURIComponent(identifier), { rate: -1 })),
      );
    });
  }

  #limiter(window: RateWindow): Ratelimit {
    const id = `${window.requests}/${window.windowMs}`;
    let limiter = this.#limiters.get(id);
    if (!limiter) {
      limiter = new Ratelimit({
        redis: this.#redis,
        limiter: Ratelimit.slidingWindow(window.requests, `${window.windowMs} ms`),
        prefix: this.#keys.rateLimit(id),
        ephemeralCache: false,
        analytics: false,
        timeout: 0,
        enableProtection: false,
      });
      this.#limiters.set(id, limiter);
    }
    return limiter;
  }
}
