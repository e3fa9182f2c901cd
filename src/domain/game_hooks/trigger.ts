/**
 * @module Triggers: a game event in the game's own terms ("the storm started", "the player
 * finished quest 3") delivered as a memory to the agents it concerns, with provenance
 * `trigger:<name>`; an important one may make an agent re-plan its day.
 */
import { z } from "zod";
import { AgentId, MemoryId } from "../ids.ts";
import { SimulacraError } from "../errors.ts";
import { GameTime } from "../time/mod.ts";
import { UsageCounts } from "../usage.ts";
import { ReactionDecision } from "../prompts/mod.ts";

/** Most characters of a trigger's `params` as JSON. */
export const MAX_TRIGGER_PARAMS_CHARS = 2000;
/** Longest trigger description, in characters. */
export const MAX_TRIGGER_DESCRIPTION = 2000;
/**
 * The importance (1–10) from which a trigger makes an agent consider re-planning its day: the
 * reaction decision runs as it does for something an agent observes in a tick.
 */
export const REPLAN_IMPORTANCE = 7;

/** The body of `POST /v1/worlds/{world}/triggers`. */
export const TriggerInput = z
  .strictObject({
    name: z.string().regex(
      /^[a-z][a-z0-9_]{0,63}$/,
      "Trigger names are 1-64 characters: a lower-case letter, then lower-case letters, digits or '_'",
    ).meta({ example: "storm_started" }),
    description: z.string().trim().min(1).meta({
      description:
        `The event in words, as the agents will remember it; at most ${MAX_TRIGGER_DESCRIPTION} characters`,
      example: "A violent storm breaks over the town; the harbour is closed",
    }),
    params: z.record(z.string(), z.unknown()).optional().meta({
      description: "The game's parameters of the event, remembered with it",
      example: { severity: "high" },
    }),
    agents: z.array(AgentId).min(1).max(500).optional().meta({
      description: "The agents it concerns; default: every agent of the world",
    }),
    importance: z.number().int().min(1).max(10).optional().meta({
      description:
        `1–10; default: rated by the model. From ${REPLAN_IMPORTANCE}, each agent decides whether to re-plan the rest of its day`,
    }),
    eventId: z.string().min(1).max(200).optional().meta({
      description: "Your id for the event: sending it again delivers nothing twice",
    }),
    at: GameTime.optional().meta({
      description: "Game time of the event; default: the world clock",
    }),
  })
  .meta({
    id: "TriggerInput",
    example: {
      name: "storm_started",
      description: "A violent storm breaks over the town; the harbour is closed",
      importance: 8,
      eventId: "storm-1",
    },
  });
export type TriggerInput = z.infer<typeof TriggerInput>;

/** What a trigger did for one agent. */
export const TriggerDelivery = z.object({
  agentId: AgentId,
  memoryId: MemoryId,
  outcome: z.enum(["created", "existing", "deduplicated"]),
  importance: z.number().int(),
  reaction: ReactionDecision.nullable().meta({
    description:
      "How the agent answered an important trigger (react: it re-planned its day); null when it was not important enough or already known",
  }),
  reactionError: z.string().optional().meta({
    description: "The error code when deciding or re-planning failed (the memory is stored)",
  }),
});

/** The response of a trigger. */
export const TriggerResult = z
  .object({
    name: z.string(),
    provenance: z.string().meta({ example: "trigger:storm_started" }),
    deliveries: z.array(TriggerDelivery),
    usage: UsageCounts,
  })
  .meta({ id: "TriggerResult" });
export type TriggerResult = z.infer<typeof TriggerResult>;

/**
 * The memory a trigger leaves: its description, and its params in words.
 * @throws `unprocessable` when the description or the params are too long.
 */
export function triggerText(input: Pick<TriggerInput, "description" | "params">): string {
  if (input.description.length > MAX_TRIGGER_DESCRIPTION) {
    throw new SimulacraError(
      "unprocessable",
      `Cannot deliver the trigger: its description is over ${MAX_TRIGGER_DESCRIPTION} characters`,
      { details: { field: "description" } },
    );
  }
  const params = Object.entries(input.params ?? {});
  if (JSON.stringify(input.params ?? {}).length > MAX_TRIGGER_PARAMS_CHARS) {
    throw new SimulacraError(
      "unprocessable",
      `Cannot deliver the trigger: its params are over ${MAX_TRIGGER_PARAMS_CHARS} characters of JSON`,
      { details: { field: "params" } },
    );
  }
  if (params.length === 0) return input.description;
  const words = params.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`);
  return `${input.description} (${words.join("; ")})`;
}
