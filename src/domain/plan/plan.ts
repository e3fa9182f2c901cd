/**
 * @module The day plan (Generative Agents §4.3): its schema (broad items, hour chunks, actions) and the pure
 * helpers that read and change it. No storage and no model calls here.
 */
import { z } from "zod";
import { type Agent } from "../agent/mod.ts";
import { SimulacraError } from "../errors.ts";
import {
  addDays,
  clockMinutes,
  clockTime,
  DAY_MINUTES,
  GameTime,
  minuteOfDay,
  timeAt,
} from "../time/mod.ts";
import { type World } from "../world/mod.ts";
import { ActionCall, DroppedAction } from "../game_hooks/mod.ts";
import { MAX_ITEM_MINUTES } from "../prompts/mod.ts";
import { fitSpans, MIN_MINUTES, splitEven } from "./plan_spans.ts";

/** A calendar date, `YYYY-MM-DD`. */
export const PlanDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Use a date as YYYY-MM-DD, e.g. 2023-02-13")
  .refine((d) => GameTime.safeParse(`${d}T00:00:00`).success, "Not a real calendar date")
  .meta({ id: "PlanDate", example: "2023-02-13" });

export type PlanDate = z.infer<typeof PlanDate>;

/** One action of 5–60 minutes, where it happens and how a game UI can show it. */
export const PlannedAction = z
  .object({
    start: GameTime,
    end: GameTime,
    description: z.string(),
    location: z.string().meta({
      description:
        "Area:Sub-area:Object in the agent's known environment; in a world without an environment, the agent's current location or \"unknown\"",
    }),
    emoji: z.string().meta({ description: "1–3 emoji", example: "☕" }),
    gameAction: ActionCall.optional().meta({
      description:
        "The game's action (PUT …/actions) this step is, announced as an action.requested event when the agent starts it",
    }),
    droppedGameAction: DroppedAction.optional().meta({
      description:
        "A game action the model chose for this step that failed the check (no action of that name, arguments not valid against its schema) and never reaches the game, announced as an action.dropped event when the agent starts it",
    }),
  })
  .meta({ id: "PlannedAction" });

export type PlannedAction = z.infer<typeof PlannedAction>;

/** An hour-long chunk of a broad item; `actions` is null until the chunk is decomposed. */
export const HourChunk = z
  .object({
    start: GameTime,
    end: GameTime,
    description: z.string(),
    actions: z.array(PlannedAction).nullable(),
  })
  .meta({ id: "HourChunk" });

export type HourChunk = z.infer<typeof HourChunk>;

/** A broad item of a day plan; `chunks` is null until the item is decomposed. */
export const PlanItem = z
  .object({
    start: GameTime,
    end: GameTime,
    description: z.string(),
    /** An area of the environment (or free text in a world without one). */
    location: z.string(),
    chunks: z.array(HourChunk).nullable(),
    goalId: z.string().optional().meta({
      description: "The agent's goal this item serves (PUT …/goals), when it serves one",
    }),
  })
  .meta({ id: "PlanItem" });

export type PlanItem = z.infer<typeof PlanItem>;

/** A day plan as stored: broad items in order, contiguous from waking up, with cached decompositions. */
export const DayPlan = z
  .object({
    worldId: z.string(),
    agentId: z.string(),
    date: PlanDate,
    wakeUp: GameTime,
    items: z.array(PlanItem),
    /** Grows by one each time the plan is made again or re-planned. */
    revision: z.number().int().min(1),
    madeAt: GameTime,
    replans: z.array(z.object({ from: GameTime, reason: z.string() })),
  })
  .meta({ id: "DayPlan" });

export type DayPlan = z.infer<typeof DayPlan>;

/** Broad items of a day plan (paper: five to eight). */
export const DAY_PLAN_ITEMS = { min: 5, max: 8 } as const;

/**
 * Importance of every `plan` memory, set without a model call. Plans are the agent's own
 * intentions and are written several times a day (each plan and re-plan); rating them would add
 * a call each time for little gain. 5 is the middle of the scale, so plans neither crowd out nor
 * sink below what the agent witnesses in retrieval. They do not count towards the reflection
 * trigger, which sums the importance of perceived events (Generative Agents §4.2).
 */
export const PLAN_IMPORTANCE = 5;

/** The longest hour chunk and the longest action, in minutes. */
export const MAX_MINUTES = 60;

const SLEEPING = { description: "sleeping", emoji: "😴" } as const;

/**
 * Checks that a day lies in the world's calendar for this agent: not before the agent's
 * creation date (the World record keeps no start time; an agent created with the world has its
 * start date, and no agent plans a day before it existed) and at most 366 days after the world
 * clock's date (a game engine may run ahead of an untouched clock, within a year).
 * @throws `unprocessable`
 */
export function checkCalendar(world: World, agent: Agent, date: string): void {
  const first = agent.createdAt.slice(0, 10);
  const last = addDays(world.clock.now.slice(0, 10), 366);
  if (date < first || date > last) {
    throw new SimulacraError(
      "unprocessable",
      `Cannot plan "${date}" for agent "${agent.id}": the world's calendar for it runs from "${first}" to "${last}": pick a day in that range`,
      { details: { first, last } },
    );
  }
}

/** The sleep piece around `minute`: the gap in the plan holding it, cut into pieces of at most an hour. */
export function sleepAction(plan: DayPlan, minute: number, location: string): PlannedAction {
  const bounds = plan.items.map((item) => [
    minuteOfDay(plan.date, item.start),
    minuteOfDay(plan.date, item.end),
  ]);
  const from = Math.max(0, ...bounds.map(([, end]) => end).filter((end) => end <= minute));
  const until = Math.min(DAY_MINUTES, ...bounds.map(([start]) => start).filter((s) => s > minute));
  const piece = splitEven({ start: from, end: until, value: null }, MAX_MINUTES).find((s) =>
    s.start <= minute && minute < s.end
  )!;
  return {
    start: timeAt(plan.date, piece.start),
    end: timeAt(plan.date, piece.end),
    ...SLEEPING,
    location,
  };
}

/** When the agent plans a day: now when the world clock is on that day, else at its start. */
export function planningTime(world: World, date: string): GameTime {
  return world.clock.now.slice(0, 10) === date ? world.clock.now : timeAt(date, 0);
}

/** "07:00–08:00 wake up and get ready" (with `at`: "… at The Lin family's house"). */
export function itemLine(date: string, item: PlanItem, at?: string): string {
  const span = `${clockTime(minuteOfDay(date, item.start))}–${
    clockTime(minuteOfDay(date, item.end))
  }`;
  return at === undefined
    ? `${span} ${item.description}`
    : `${span}${at}${item.location}: ${item.description}`;
}

export function withItem(plan: DayPlan, index: number, change: Partial<PlanItem>): DayPlan {
  return {
    ...plan,
    items: plan.items.map((item, i) => (i === index ? { ...item, ...change } : item)),
  };
}

/** The plan with the actions of chunk `at.chunk` of item `at.item` replaced. */
export function withChunk(
  plan: DayPlan,
  at: { item: number; chunk: number },
  actions: PlannedAction[],
): DayPlan {
  const chunks = plan.items[at.item].chunks!.map((
    chunk,
    j,
  ) => (j === at.chunk ? { ...chunk, actions } : chunk));
  return withItem(plan, at.item, { chunks });
}

/**
 * Where a re-plan from `minute` cuts the day: `minute`, or the start of the item, chunk or action
 * in progress when less than 5 minutes of it have passed, so every kept piece lasts at least 5
 * minutes.
 */
export function cutPoint(plan: DayPlan, minute: number): number {
  const m = (t: string) => minuteOfDay(plan.date, t);
  const holding = <T extends { start: string; end: string }>(list: readonly T[] | null) =>
    list?.find((s) => m(s.start) < minute && minute < m(s.end));
  const item = holding(plan.items);
  const chunk = holding(item?.chunks ?? null);
  for (const piece of [item, chunk, holding(chunk?.actions ?? null)]) {
    if (piece && minute - m(piece.start) < MIN_MINUTES) return m(piece.start);
  }
  return minute;
}

/**
 * The items before `cut`. Pieces that run past it (item, chunk, action) end at it; cached
 * decompositions after it are dropped.
 */
export function keepBefore(plan: DayPlan, cut: number): PlanItem[] {
  const m = (t: string) => minuteOfDay(plan.date, t);
  const end = timeAt(plan.date, cut);
  const clip = <T extends { start: string; end: string }>(list: readonly T[]) =>
    list.filter((s) => m(s.start) < cut).map((s) => (m(s.end) > cut ? { ...s, end } : s));
  return clip(plan.items).map((item) =>
    item.chunks === null ? item : {
      ...item,
      chunks: clip(item.chunks).map((chunk) =>
        chunk.actions === null ? chunk : { ...chunk, actions: clip(chunk.actions) }
      ),
    }
  );
}

/** One broad item as the `day_plan` prompt answers it (a day plan or a re-plan). */
export interface AnsweredItem {
  start: string;
  durationMinutes: number;
  description: string;
  /** 1-based number of the place in the list the prompt showed. */
  place: number;
  /** 1-based number of the goal it serves in the list the prompt showed, when it serves one. */
  goal?: number | null;
}

/**
 * Turns the model's broad items into plan items of `date`: fitted in order from minute `from`
 * of the day to its end (an item stretched past 6 hours to fill a gap is cut into even pieces
 * of at most `MAX_ITEM_MINUTES`), and placed in the places the prompt offered. Shared by the day
 * plan and the re-plan, so both read an answer the same way.
 */
export function planItemsFromAnswer(
  items: readonly AnsweredItem[],
  options: {
    date: string;
    from: number;
    places: readonly { name: string }[];
    /** The goals the prompt showed, by number; an item naming one carries its id. */
    goals?: readonly { id: string }[];
  },
): PlanItem[] {
  const { date, from, places, goals = [] } = options;
  return fitSpans(
    items.map((it) => ({ start: clockMinutes(it.start), minutes: it.durationMinutes, value: it })),
    { lo: from, hi: DAY_MINUTES, cover: false, maxMinutes: MAX_ITEM_MINUTES },
  ).map((s) => ({
    start: timeAt(date, s.start),
    end: timeAt(date, s.end),
    description: s.value.description.trim(),
    location: places[s.value.place - 1].name,
    chunks: null,
    ...(goals[(s.value.goal ?? 0) - 1] ? { goalId: goals[s.value.goal! - 1].id } : {}),
  }));
}

/** A day plan a planning call made (it asked the model): what the tick logs as a `plan` event. */
export interface PlanMade {
  agentId: string;
  date: string;
  /** True for a re-plan of the rest of a day. */
  replan: boolean;
  /** Why it re-planned. */
  reason?: string;
}
