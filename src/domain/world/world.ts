/** @module Worlds: a named place with its own game clock (Generative Agents §5). */
import { z } from "zod";
import { ConflictError, NotFoundError } from "../errors.ts";
import { WorldId } from "../ids.ts";
import { WeightsOrPreset } from "./retrieval_weights.ts";
import { GameTime } from "../time/mod.ts";

/** Who moves a world's time: the built-in scheduler (each real minute) or only the caller. */
export const ClockMode = z.enum(["cron", "manual"]).meta({
  id: "ClockMode",
  description:
    "cron: the scheduler advances the world by minutesPerTick each real minute (unless paused); manual: only POST …/tick advances it",
});
export type ClockMode = z.infer<typeof ClockMode>;
/** A world's clock: game time now, how far a tick advances, who moves it, and whether it stands. */
export const Clock = z
  .object({
    now: GameTime,
    minutesPerTick: z.number().int().min(1).max(1440),
    mode: ClockMode,
    paused: z.boolean().meta({
      description:
        "A paused world is not advanced by the scheduler; POST …/tick still advances it when asked",
    }),
  })
  .meta({ id: "Clock" });
export type Clock = z.infer<typeof Clock>;
/**
 * Most model calls and tokens a world may spend per UTC day. Once spent, model-calling requests
 * answer 429 `budget_exceeded` and ticks keep agents on their current plans without calls.
 */
export const WorldBudget = z
  .strictObject({
    callsPerDay: z.number().int().min(0).max(1e9).optional(),
    tokensPerDay: z.number().int().min(0).max(1e12).optional(),
  })
  .meta({
    id: "WorldBudget",
    description:
      "Checked when a request starts, and when a tick and each of its agents' steps start: what starts under budget finishes, so a request (and each one started alongside it) can go over by its own cost, a tick by the steps running when the budget ran out. Every call counts, ticks' queued and scheduled steps included",
    example: { callsPerDay: 5000, tokensPerDay: 2_000_000 },
  });
export type WorldBudget = z.infer<typeof WorldBudget>;
/** The clock fields a caller sets when creating or changing a world. */
export const ClockInput = z
  .strictObject({
    mode: ClockMode.optional(),
    paused: z.boolean().optional(),
  })
  .meta({ id: "ClockInput", example: { mode: "manual" } });
export type ClockInput = z.infer<typeof ClockInput>;
/** How far ahead of the clock an observation may be dated by default: one game day. */
export const FUTURE_MARGIN_MINUTES = 1_440;
/** New events from its surroundings an agent perceives per tick by default (reference: att_bandwidth 3). */
export const ATTENTION_BANDWIDTH = 3;
/** Per-world tuning of the memory stream and the simulation; every field has the paper's default. */
export const WorldSettings = z
  .strictObject({
    reflectionThreshold: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(150)
      .meta({ description: "Summed importance that makes a reflection due (paper: 150)" }),
    retentionMinutes: z
      .number()
      .int()
      .min(0)
      .max(1440)
      .default(30)
      .meta({
        description: "Identical observations within this many game minutes are stored once",
      }),
    memoryBudget: z
      .number()
      .int()
      .min(10)
      .max(100_000)
      .default(500)
      .meta({
        description:
          "Most live memories per agent: past it, those least likely to be retrieved again (superseded, old, unimportant, never recalled) are archived — kept, listed with ?archived=true, retrieved with includeArchived",
      }),
    recencyDecay: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.995)
      .meta({ description: "Recency = decay ^ game hours since last access (paper: 0.995)" }),
    retrievalWeights: WeightsOrPreset.default("paper"),
    summaryRefreshHours: z
      .number()
      .min(0)
      .max(24 * 365)
      .default(24)
      .meta({
        description:
          "The cached agent summary is remade when older than this (game hours), or than a third of it once a reflection made it stale",
      }),
    reflectionQuestions: z.number().int().min(1).max(10).default(3),
    autoReflect: z.boolean().default(true).meta({
      description:
        "Reflect automatically when due (after perceive, and in ticks); when false, only POST …/reflect reflects",
    }),
    conversationTurnCap: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(8)
      .meta({ description: "Most lines per speaker in one conversation (reference: 8)" }),
    conversationCooldownMinutes: z
      .number()
      .int()
      .min(0)
      .max(1440)
      .default(60)
      .meta({
        description:
          "Two agents who talked do not start another conversation within this many game minutes",
      }),
    talkCooldownMinutes: z
      .number()
      .int()
      .min(0)
      .max(1440)
      .default(120)
      .meta({
        description:
          "In ticks, an agent who talked with anyone within this many game minutes starts no new conversation (0: no limit); keeps a busy town's cost down",
      }),
    attentionBandwidth: z
      .number()
      .int()
      .min(1)
      .max(50)
      .default(ATTENTION_BANDWIDTH)
      .meta({
        description:
          "In ticks, the most new events an agent perceives from its area per step, nearest and most salient first (reference: att_bandwidth 3); the object its own action uses and actions that name it always count, and conversations and POST …/perceive are not limited",
      }),
    groupTalk: z.boolean().default(false).meta({
      description:
        "In ticks, when an agent starts a conversation with a newcomer and others who may talk share the place (same sub-area), they join it: one group conversation instead of pairs",
    }),
    playerReplyMinutes: z
      .number()
      .int()
      .min(1)
      .max(1440)
      .default(30)
      .meta({
        description:
          "A conversation with a player that waits this many game minutes for the player's line closes (endedBy timeout)",
      }),
    idlePauseMinutes: z
      .number()
      .int()
      .min(0)
      .max(525_600)
      .default(30)
      .meta({
        description:
          "A cron-mode world with no API request for this many real minutes pauses itself (a world.paused event says why); 0: never",
      }),
    disclosure: z.boolean().default(false).meta({
      description:
        "When true, an agent sincerely asked whether it is an AI says so, in character (Memory-Driven Role-Playing §3.3)",
    }),
    futureMarginMinutes: z
      .number()
      .int()
      .min(0)
      .max(525_600)
      .default(FUTURE_MARGIN_MINUTES)
      .meta({
        description:
          "Perceive refuses (422) an observation dated more than this many game minutes after the world clock: a mistyped year would otherwise stay the most recent memory forever",
      }),
    budget: WorldBudget.optional(),
    seed: z.number().int().min(0).max(2 ** 31 - 1).optional().meta({
      description:
        "Replays exactly: ticks pass it to the model with every call, and the offline model keys its choices by it (with agent, game time and prompt kind) instead of by the world id, so the same seed gives the same run at any concurrency",
    }),
  })
  .meta({ id: "WorldSettings" });
export type WorldSettings = z.infer<typeof WorldSettings>;
/** A world as stored and returned. */
export const World = z
  .object({ id: WorldId, name: z.string(), clock: Clock, settings: WorldSettings })
  .meta({ id: "World" });
export type World = z.infer<typeof World>;
/** A town shipped with the product, created whole by `POST /v1/worlds` with `template`. */
export const WorldTemplate = z.enum(["smallville"]).meta({
  id: "WorldTemplate",
  description:
    "smallville: the example town (23 areas with an inn for newcomers, 25 residents, a Valentine's Day party and a mayoral candidacy as seeds)",
});
export type WorldTemplate = z.infer<typeof WorldTemplate>;
/** The body of `POST /v1/worlds`. */
export const CreateWorldInput = z
  .strictObject({
    id: WorldId.optional().meta({ description: "Your own id; minted when absent" }),
    name: z.string().trim().min(1).max(200),
    startTime: GameTime.optional().meta({
      description:
        "Required without `template`; a template has its own default (smallville: 2023-02-13T07:00:00)",
    }),
    minutesPerTick: z.number().int().min(1).max(1440).default(10),
    clock: ClockInput.optional().meta({
      description:
        'How time moves: `{"mode": "manual"}` for a game that ticks the world itself, `{"paused": true}` to start stopped. Default: cron, running',
    }),
    settings: WorldSettings.default(WorldSettings.parse({})),
    template: WorldTemplate.optional().meta({
      description: "Create the template's environment and agents too",
    }),
  })
  .refine((input) => input.startTime !== undefined || input.template !== undefined, {
    path: ["startTime"],
    message: 'Give startTime (e.g. "2023-02-13T07:00:00") or a template',
  })
  .meta({
    id: "CreateWorldInput",
    example: { name: "Smallville", startTime: "2023-02-13T07:00:00" },
  });
export type CreateWorldInput = z.infer<typeof CreateWorldInput>;
/**
 * The lease that creating a world holds for a moment and importing one holds throughout, so an
 * import and a creation of the same id exclude each other: one of them fails with `conflict`,
 * and no world ends up part imported, part created.
 */
export function worldCreationKey(id: string): string {
  return `world-create:${id}`;
}
/** How long a crashed creation or import blocks its world id. */
export const WORLD_CREATION_TTL_MS = 10_000;
/** The error of creating a world whose id is taken. */
export function worldTaken(id: string): ConflictError {
  return new ConflictError(`Cannot create world "${id}": it exists already, pick another id`);
}
/** The error of a world that does not exist (or that the caller may not see: the same error). */
export function worldNotFound(id: string): NotFoundError {
  return new NotFoundError(
    "world_not_found",
    `Cannot find world "${id}": create it with POST /v1/worlds or list worlds with GET /v1/worlds`,
  );
}
/**
 * A stored world with the fields added since it was written (clock mode, idle pause, attention
 * bandwidth) at their defaults, so worlds made by earlier versions keep working.
 */
export function withDefaults(world: World): World {
  return {
    ...world,
    clock: { ...world.clock, mode: world.clock.mode ?? "cron" },
    settings: {
      ...world.settings,
      idlePauseMinutes: world.settings.idlePauseMinutes ?? 30,
      attentionBandwidth: world.settings.attentionBandwidth ?? ATTENTION_BANDWIDTH,
    },
  };
}
