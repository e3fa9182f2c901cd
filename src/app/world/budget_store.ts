/** @module Budgets in storage: whether a world's daily limit is spent. */
import type { Deps } from "../../ports/mod.ts";
import { spentLimit, SpentWorldBudget, type World, worldSubject } from "../../domain/mod.ts";

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
