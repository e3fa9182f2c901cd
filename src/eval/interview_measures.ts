/**
 * @module A town's emergent measures by interview (`POST …/metrics`'s way), for the simulate
 * summary to show beside its text-matching numbers (Generative Agents §7 interviewed agents).
 */
import { z } from "zod";
import { GameTime, UsageCounts, type WorldId } from "../domain/mod.ts";
import type { Deps, JudgeDeps } from "../ports/mod.ts";
import { measureWorld, offeredTown, type TownCatalog } from "../app/mod.ts";
import type { WorldTemplate } from "../domain/mod.ts";

/** The measures by interview, as the summary carries them. */
export const InterviewMeasures = z
  .object({
    at: GameTime,
    diffusion: z.object({
      party: z.object({ share: z.number(), knows: z.array(z.string()) }),
      candidacy: z.object({ share: z.number(), knows: z.array(z.string()) }),
    }),
    networkDensity: z.number(),
    partyAttendance: z.object({ attended: z.array(z.string()), count: z.number().int() })
      .nullable(),
    judge: z.string().meta({ description: "The judge's label (the offline one says so)" }),
    usage: z.object({ agent: UsageCounts, judge: UsageCounts }),
  })
  .meta({ id: "InterviewMeasures" });
export type InterviewMeasures = z.infer<typeof InterviewMeasures>;

/**
 * Interviews the town's agents about its two facts, whom they know and (when the run reached
 * its end) whether they were at the party.
 * @throws `model_*`, `store_unavailable`.
 */
export async function townByInterview(
  deps: Pick<Deps, "storage" | "model" | "embedder"> & JudgeDeps,
  worldId: WorldId,
  options: { catalog: TownCatalog; template: WorldTemplate; endTime: GameTime },
): Promise<InterviewMeasures> {
  const town = offeredTown(options.catalog, options.template).town();
  const fact = (id: string) => town.facts.find((f) => f.id === id)!.description;
  const reached = options.endTime >= town.party.end;
  const m = await measureWorld(deps, worldId, {
    facts: [fact("party"), fact("candidacy")],
    ...(reached
      ? { event: { place: town.party.area, from: town.party.start, to: town.party.end } }
      : {}),
  });
  const [party, candidacy] = m.diffusion;
  return {
    at: m.at,
    diffusion: {
      party: { share: party.share, knows: party.knows },
      candidacy: { share: candidacy.share, knows: candidacy.knows },
    },
    networkDensity: m.networkDensity.density,
    partyAttendance: m.attendance === null
      ? null
      : { attended: m.attendance.attended, count: m.attendance.attended.length },
    judge: m.judge.label,
    usage: m.usage,
  };
}
