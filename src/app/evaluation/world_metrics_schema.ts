/** @module The body and answer of `POST /v1/worlds/{world}/metrics`: emergent measures by interview (Generative Agents §7). */
import { z } from "zod";
import { GameTime, UsageCounts } from "../../domain/mod.ts";

/** The body: facts to trace, an event to check attendance of. */
export const WorldMetricsInput = z
  .strictObject({
    facts: z.array(z.string().trim().min(1).max(300)).max(10).default([]).meta({
      description:
        "Facts whose spread to measure: each agent is asked whether it has heard of each",
    }),
    event: z
      .strictObject({
        place: z.string().trim().min(1).max(200),
        from: GameTime,
        to: GameTime,
      })
      .refine((e) => e.from < e.to, { message: "from must be before to", path: ["to"] })
      .optional()
      .meta({ description: "Each agent is asked whether it was at the place in that time" }),
  })
  .meta({
    id: "WorldMetricsInput",
    example: {
      facts: ["Lucia Ferreira hosts a Valentine's Day party at Marigold Cafe"],
      event: { place: "Marigold Cafe", from: "2023-02-14T17:00:00", to: "2023-02-14T19:00:00" },
    },
  });
export type WorldMetricsInput = z.input<typeof WorldMetricsInput>;

/** One agent's answer and what the judge read in it. */
const Evidence = z.object({
  agent: z.string(),
  question: z.string(),
  answer: z.string(),
  knows: z.boolean(),
  reason: z.string(),
});

/** The measures, each with every agent's answer as evidence. */
export const WorldMetricsResult = z
  .object({
    at: GameTime,
    agents: z.number().int(),
    diffusion: z.array(z.object({
      fact: z.string(),
      knows: z.array(z.string()).meta({ description: "Names of the agents whose answer shows it" }),
      share: z.number().min(0).max(1),
      evidence: z.array(Evidence),
    })),
    networkDensity: z.object({
      density: z.number().min(0).max(1).meta({
        description: "Pairs who each name the other as known, over all pairs",
      }),
      pairs: z.array(z.tuple([z.string(), z.string()])),
      evidence: z.array(Evidence.extend({ named: z.array(z.string()) })),
    }),
    attendance: z.object({
      place: z.string(),
      from: GameTime,
      to: GameTime,
      attended: z.array(z.string()),
      evidence: z.array(Evidence),
    }).nullable(),
    judge: z.object({ model: z.string(), offline: z.boolean(), label: z.string() }),
    usage: z.object({ agent: UsageCounts, judge: UsageCounts }),
  })
  .meta({ id: "WorldMetricsResult" });
export type WorldMetricsResult = z.infer<typeof WorldMetricsResult>;
