/** @module Budgets: the counters spend is added to, and whether a limit is spent. */
import type { Deps } from "../deps.ts";
import type { Spend } from "../ports/usage_ledger.ts";
import type { World, WorldBudget } from "./world.ts";

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
 * Whether the world's daily budget (`settings.budget`) is spent on the UTC day `day`; null when
 * it has none or room is left.
 */
export async function spentWorldBudget(
  deps: Pick<Deps, "storage">,
  world: World,
  { day }: { day: string },
): Promise<SpentWorldBudget | null> {
  const budget = world.settings.budget;
  if (!budget || (budget.callsPerDay === undefined && budget.tokensPerDay === undefined)) {
    return null;
  }
  const limit = spentLimit(
    { calls: budget.callsPerDay, tokens: budget.tokensPerDay },
    await deps.storage.usage.spend(worldSubject(world.id), day),
  );
  return limit ? { day, limit, budget } : null;
}
