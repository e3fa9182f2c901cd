/**
 * @module The HTTP shapes of planning: request bodies, queries and responses, and a stored plan
 * as the API shows it (also in `GET …/agents/{agent}`).
 */
import { z } from "zod";
import {
  type DayPlan,
  GameTime,
  HourChunk,
  PlanDate,
  PlannedAction,
  UsageCounts,
} from "../src/domain/mod.ts";

/** The body of `POST …/agents/{agent}/plan`. */
export const PlanInput = z
  .strictObject({
    date: PlanDate.optional().meta({
      description: "Default: the date of `from`, else of the world clock",
    }),
    from: GameTime.optional().meta({
      description: "Keep the day up to this time and plan the rest again",
    }),
    reason: z.string().trim().min(1).max(500).optional().meta({
      description: 'With `from`: what came up, e.g. "talked with Maria about the party"',
    }),
  })
  .meta({ id: "PlanInput", example: { date: "2023-02-13" } });

export type PlanInput = z.infer<typeof PlanInput>;

/** The query of `GET …/plan`. */
export const PlanQuery = z.strictObject({
  date: PlanDate.optional().meta({ description: "Default: the date of the world clock" }),
});

/** The query of `GET …/action`. */
export const ActionQuery = z.strictObject({
  at: GameTime.optional().meta({ description: "Default: the world clock" }),
});

/** A day plan as the API shows it. */
export const PlanView = z
  .object({
    date: PlanDate,
    wakeUp: GameTime,
    revision: z.number().int(),
    items: z.array(z.object({
      start: GameTime,
      end: GameTime,
      description: z.string(),
      location: z.string(),
      emoji: z.string().optional(),
      chunks: z.array(HourChunk).nullable().meta({
        description:
          "The item decomposed into hour chunks and 5–60-minute actions, as far as it has been (null until the item starts)",
      }),
      goalId: z.string().optional().meta({
        description: "The agent's goal (PUT …/goals) this item serves, when it serves one",
      }),
    })),
  })
  .meta({ id: "PlanView" });

export type PlanView = z.infer<typeof PlanView>;

/** The response of `POST …/plan`. */
export const PlanResult = PlanView.extend({ usage: UsageCounts }).meta({ id: "PlanResult" });

export type PlanResult = z.infer<typeof PlanResult>;

/** The response of `GET …/action`. */
export const ActionResult = z
  .object({ action: PlannedAction, usage: UsageCounts })
  .meta({ id: "ActionResult" });

export type ActionResult = z.infer<typeof ActionResult>;

/** A stored plan as the API shows it. */
export function planView(plan: DayPlan): PlanView {
  return {
    date: plan.date,
    wakeUp: plan.wakeUp,
    revision: plan.revision,
    items: plan.items.map(({ start, end, description, location, chunks, goalId }) => ({
      start,
      end,
      description,
      location,
      chunks,
      ...(goalId === undefined ? {} : { goalId }),
    })),
  };
}
