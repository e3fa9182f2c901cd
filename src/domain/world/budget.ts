/** @module Budgets: the counters spend is added to, and whether a limit is spent. */
import type { Spend } from "../usage.ts";
import type { WorldBudget } from "./world.ts";

/** The budget counter of a world (one per UTC day). */
export function worldSubject(worldId: string): string {
  return `world:${worldId}`;
}
/** The budget counter of an API key (period `total`: a key's budget is for its lifetime). */
export function keySubject(keyId: string): string {
  return `key:${keyId}`;
}
/** Calls and tokens a budget allows; an absent field is unlimited. */
export interface BudgetLimits {
  calls?: number;
  tokens?: number;
}
/** Which limit is spent ("calls" or "tokens"), or null when there is room left. */
export function spentLimit(limits: BudgetLimits, spent: Spend): "calls" | "tokens" | null {
  if (limits.calls !== undefined && spent.calls >= limits.calls) return "calls";
  if (limits.tokens !== undefined && spent.tokens >= limits.tokens) return "tokens";
  return null;
}
/** A world's spent daily budget: which limit, on which UTC day. */
export interface SpentWorldBudget {
  day: string;
  limit: "calls" | "tokens";
  budget: WorldBudget;
}
/**
 * Who a tick's model calls count toward, carried in its plan: the UTC day of the world's daily
 * budget it is checked against, and the API key that started it (none for the admin key and the
 * scheduler). Every step of the tick, queued or not, is checked against both and charged to both.
 */
export interface TickBilling {
  day: string;
  key?: { id: string; budget?: BudgetLimits };
}
