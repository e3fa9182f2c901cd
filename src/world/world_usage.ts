/** @module Usage totals of a world, as `GET /v1/worlds/{world}/usage` returns them. */
import { z } from "zod";
import type { Deps } from "../deps.ts";
import type { WorldId } from "../ids.ts";
import { UsageCounts } from "../model/usage.ts";
import { getWorld } from "./world.ts";

const Counts = UsageCounts.meta({ id: "Usage" });

/** Totals for the world, per agent and per operation. */
export const WorldUsage = z
  .object({
    worldId: z.string(),
    total: Counts,
    byAgent: z.record(z.string(), Counts),
    byOperation: z.record(z.string(), Counts),
  })
  .meta({ id: "WorldUsage" });
export type WorldUsage = z.infer<typeof WorldUsage>;

/**
 * The world's usage totals.
 * @throws `world_not_found`
 */
export async function worldUsage(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<WorldUsage> {
  await getWorld(deps, worldId);
  return { worldId, ...(await deps.storage.usage.totals(worldId)) };
}
