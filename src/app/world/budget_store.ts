/** @module Budgets in storage: whether a world's daily limit or a key's lifetime one is spent. */
import type { Deps } from "../../ports/mod.ts";
import {
  type BudgetLimits,
  keySubject,
  spentLimit,
  SpentWorldBudget,
  type TickBilling,
  type World,
  worldSubject,
} from "../../domain/mod.ts";

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

/** Which limit of an API key's lifetime budget is spent, or null (none set, or room left). */
export async function spentKeyBudget(
  deps: Pick<Deps, "storage">,
  key: { id: string; budget?: BudgetLimits },
): Promise<"calls" | "tokens" | null> {
  const { budget } = key;
  if (!budget || (budget.calls === undefined && budget.tokens === undefined)) return null;
  return spentLimit(budget, await deps.storage.usage.spend(keySubject(key.id), "total"));
}

/**
 * Which budget a tick's step would run past, checked as the step starts: the world's daily one
 * (on the tick's day) or that of the key that started the tick; null when both have room, or
 * the tick is not billed. Reads nothing when neither has a budget.
 */
export async function spentTickBudget(
  deps: Pick<Deps, "storage">,
  tick: { world: World; billing?: TickBilling },
): Promise<"world" | "key" | null> {
  const { billing } = tick;
  if (!billing) return null;
  const [world, key] = await Promise.all([
    spentWorldBudget(deps, tick.world, billing),
    billing.key ? spentKeyBudget(deps, billing.key) : null,
  ]);
  return world ? "world" : key ? "key" : null;
}
