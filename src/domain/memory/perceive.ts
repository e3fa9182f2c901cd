/** @module Perceive: store a batch of observations, idempotently, with one importance call and one embedding call (Generative Agents §4.1). */
import { z } from "zod";
import { type Agent } from "../agent/mod.ts";
import { SimulacraError } from "../errors.ts";
import { UsageCounts } from "../usage.ts";
import { gameMinutes, GameTime } from "../time/mod.ts";
import { FUTURE_MARGIN_MINUTES, type World } from "../world/mod.ts";
import { MemoryRecord, type Provenance } from "./memory_record.ts";

/** One observation an engine reports. */
export const Observation = z
  .strictObject({
    text: z.string().trim().min(1).max(2000),
    eventId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "Your id for the event; sending it again returns the same memory" }),
    at: GameTime.optional().meta({
      description: "Game time of the event; default: the world clock",
    }),
    location: z.string().trim().min(1).max(300).optional().meta({ example: "Hobbs Cafe:counter" }),
  })
  .meta({ id: "Observation" });
export type Observation = z.infer<typeof Observation>;
/** The body of `POST …/agents/{agent}/perceive`. */
export const PerceiveInput = z
  .strictObject({ observations: z.array(Observation).min(1).max(500) })
  .meta({
    id: "PerceiveInput",
    example: { observations: [{ text: "Isabella is decorating the cafe", eventId: "e-101" }] },
  });
export type PerceiveInput = z.infer<typeof PerceiveInput>;
/** What happened to each observation, in order. */
export const PerceiveOutcome = z.enum(["created", "existing", "deduplicated"]);
/** The response of perceive. */
export const PerceiveResult = z
  .object({
    memories: z.array(MemoryRecord),
    outcomes: z.array(PerceiveOutcome).meta({
      description:
        "Per observation: created, existing (known eventId) or deduplicated (same text within the retention window)",
    }),
    importanceSinceReflection: z.number().int(),
    reflectionDue: z.boolean(),
    importancePending: z.number().int().meta({
      description:
        "Memories stored with a provisional importance because the model failed; scored on a later perceive",
    }),
    reflections: z.array(MemoryRecord).meta({
      description:
        "Reflections stored by the automatic reflection (world setting autoReflect) that this perceive made due; empty otherwise, or when it failed (the next perceive tries again). importanceSinceReflection and reflectionDue describe the state before it",
    }),
    usage: UsageCounts,
  })
  .meta({ id: "PerceiveResult" });
export type PerceiveResult = z.infer<typeof PerceiveResult>;
/**
 * Refuses, before anything is spent, observations dated further after the world clock than the
 * world's `futureMarginMinutes` (recency would keep them on top of every retrieval).
 * @throws `unprocessable` naming the first such observation (`details.index`).
 */
export function assertNotTooFarAhead(world: World, observations: readonly Observation[]): void {
  const margin = world.settings.futureMarginMinutes ?? FUTURE_MARGIN_MINUTES;
  const limit = gameMinutes(world.clock.now) + margin;
  const index = observations.findIndex((o) => o.at !== undefined && gameMinutes(o.at) > limit);
  if (index === -1) return;
  throw new SimulacraError(
    "unprocessable",
    `Cannot perceive observation ${index}: it is dated "${
      observations[index].at
    }", more than ${margin} game minutes after the world clock ("${world.clock.now}"): date it at or before the clock, or raise the world's futureMarginMinutes`,
    { details: { index, at: observations[index].at, clock: world.clock.now, margin } },
  );
}
/** An observation whose importance the caller already scored (e.g. batched across agents). */
export interface ScoredObservation extends Observation {
  /** 1–10; when absent, perceive scores it as usual. */
  importance?: number;
  /** Where it came from; default `witnessed` (a game's trigger: `trigger:<name>`). */
  provenance?: Provenance;
}
/** What {@linkcode perceiveHeld} stored, and the agent as it left it (counters, known areas). */
export interface Perceived {
  result: Omit<PerceiveResult, "reflections">;
  agent: Agent;
}
