/** @module Port: model usage totals per world, agent and operation. */
import type { Spend, UsageRecord } from "../domain/mod.ts";

export type { Spend };

/** Totals, as returned by `GET /v1/worlds/{world}/usage`. */
export interface UsageTotals {
  total: UsageCounts;
  byAgent: Record<string, UsageCounts>;
  byOperation: Record<string, UsageCounts>;
}

/** Calls and tokens. */
export interface UsageCounts {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Of `promptTokens`, those the provider served from its prompt cache. */
  cachedPromptTokens: number;
}

/**
 * Adds up usage; increments are atomic. Throws `store_unavailable` when the backend fails. As
 * every storage port (see `DocumentStore`): the address first (`subject, period`, as `spend`
 * takes it), then one object with the amounts and how long to keep them.
 */
export interface UsageLedger {
  /** Adds one call's usage to its world's totals (records without a world are not kept). */
  add(record: UsageRecord): Promise<void>;

  /** The totals of a world (zeros when nothing was recorded). */
  totals(worldId: string): Promise<UsageTotals>;

  /**
   * Removes a world's totals, or only one agent's line in them (`options.agentId`): the world's
   * total and per-operation counts keep what that agent cost.
   */
  remove(worldId: string, options?: { agentId?: string }): Promise<void>;

  /**
   * Adds to a budget counter: a subject (e.g. `world:<id>`, `key:<id>`) in a period (e.g. a
   * UTC day `2026-11-23`, or `total`) the amounts of `write.spend`. Atomic, like `add`. With
   * `expireAfterMs` the counter may be dropped that long after its last write (a day's counter
   * is not needed next week).
   */
  addSpend(subject: string, period: string, write: SpendWrite): Promise<void>;

  /** A budget counter (zeros when nothing was spent). */
  spend(subject: string, period: string): Promise<Spend>;
}

/** What {@linkcode UsageLedger.addSpend} adds, and how long the counter is kept. */
export interface SpendWrite extends SpendOptions {
  spend: Spend;
}

/** How long a budget counter is kept. */
export interface SpendOptions {
  /** Keep the counter at least this long after its last write. @default forever */
  expireAfterMs?: number;
}
