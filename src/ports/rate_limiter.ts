/**
 * @module Port: sliding-window rate limits shared by every instance using the same store (the
 * algorithm of `@upstash/ratelimit`'s `slidingWindow`, which the hosted backend uses as is).
 */

/** One limit: at most `requests` per window of `windowMs`. */
export interface RateWindow {
  requests: number;
  windowMs: number;
}

/** The outcome of counting one request. */
export interface RateDecision {
  /** Whether the request fits (and was counted). */
  success: boolean;
  /** The limit that applied. */
  limit: number;
  /** Requests left in the window after this one (0 when refused). */
  remaining: number;
  /** Wall-clock ms since epoch when the current window ends. */
  reset: number;
}

/**
 * Counts requests per identifier in fixed windows and weighs the previous window by how much of
 * it still overlaps the sliding window: `previous × (1 − elapsed/window) + current`. A refused
 * request is not counted. Throws `store_unavailable` when the backend fails.
 */
export interface RateLimiter {
  /** Counts one request of `identifier` against `window`, unless it would go over. */
  limit(identifier: string, window: RateWindow): Promise<RateDecision>;

  /**
   * Counts one request of `identifier` against every window, or against none when any is full:
   * one decision per window, in order, each `success` saying whether that window had room.
   */
  limitAll(identifier: string, windows: readonly RateWindow[]): Promise<RateDecision[]>;

  /**
   * Gives back one request that {@linkcode limitAll} counted, in each window (from its current
   * window): for a slot taken before knowing whether it should count (failed-auth back-off).
   */
  refund(identifier: string, windows: readonly RateWindow[]): Promise<void>;
}
