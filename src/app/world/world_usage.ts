/** @module Usage totals of a world, as `GET /v1/worlds/{world}/usage` returns them. */
import { z } from "zod";
import { UsageCounts, WorldBudget, type WorldId, worldSubject } from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { getWorld } from "./world_store.ts";

const Counts = UsageCounts.meta({ id: "Usage" });

/** Totals for the world, per agent and per operation. */
export const WorldUsage = z
  .object({
    worldId: z.string(),
    total: Counts,
    byAgent: z.record(z.string(), Counts),
    byOperation: z.record(z.string(), Counts),
    budget: z.object({
      day: z.string().meta({ description: "The UTC day the budget counts, YYYY-MM-DD" }),
      limits: WorldBudget.nullable().meta({ description: "settings.budget; null when unset" }),
      spent: z.object({ calls: z.number().int(), tokens: z.number().int() }),
      remaining: z.object({
        calls: z.number().int().nullable(),
        tokens: z.number().int().nullable(),
      }).meta({ description: "What is left today; null where no limit is set" }),
    }),
  })
  .meta({ id: "WorldUsage" });
export type WorldUsage = z.infer<typeof WorldUsage>;

/**
 * The world's usage totals and today's budget (`day` is the UTC day, from the caller's clock).
 * @throws `world_not_found`
 */
export async function worldUsage(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  options: { day: string },
): Promise<WorldUsage> {
  const world = await getWorld(deps, worldId);
  const [totals, spent] = await Promise.all([
    deps.storage.usage.totals(worldId),
    deps.storage.usage.spend(worldSubject(worldId), options.day),
  ]);
  const limits = world.settings.budget ?? null;
  const left = (limit: number | undefined, used: number) =>
    limit === undefined ? null : Math.max(0, limit - used);
  return {
    worldId,
    ...totals,
    budget: {
      day: options.day,
      limits,
      spent,
      remaining: {
        calls: left(limits?.callsPerDay, spent.calls),
        tokens: left(limits?.tokensPerDay, spent.tokens),
      },
    },
  };
}
