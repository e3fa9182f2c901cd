/** @module Prompt: a character's day in broad strokes (5–8 timed items), or the rest of a day after something came up (Generative Agents §4.3). */
import { z } from "zod";
import { schemaMemo } from "./_schema_memo.ts";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { clipLine, inertJson, profileText } from "./data_block.ts";
import { clockMinutes, ClockTime } from "../time/mod.ts";
import { planSteps } from "./_plan_steps.ts";
import { goalField, goalRules, goalSection, type PlanGoal } from "./_plan_goals.ts";

export type { PlanGoal };

/** Longest note about the previous day the prompt shows, in characters (reflections can run long). */
export const NOTE_LINE_CHARS = 160;

/**
 * The longest broad item of a day, in minutes: a longer stretch is split (a work day around
 * lunch, the evening into dinner, free time and bed), so no plan holds one block of ten hours.
 */
export const MAX_ITEM_MINUTES = 360;

/** A place the character knows, offered by number (1-based, in list order). */
export interface DayPlanPlace {
  /** An area of the environment, or free text in a world without one. */
  name: string;
  role: "home" | "workplace" | "current" | "known";
  /**
   * What the area holds: its rendered contents ("cafe (counter, coffee machine: brewing
   * coffee)"), only its sub-areas ("cafe, kitchen"), or "".
   */
  contents: string;
}

/** Re-planning the rest of a day: what is kept, and why the rest changes. */
export interface DayPlanRemainder {
  /** The first minute to plan, `HH:MM`. */
  from: string;
  /** When the character got up today, `HH:MM`; the answer repeats it. */
  wakeUp: string;
  /** What came up, e.g. "talked with Maria about the party". */
  reason: string;
  /**
   * When the character's own inner voice made it re-plan, its words ("I should close the cafe
   * early"), which the plan turns into an item of the character's own; else null.
   */
  directive: string | null;
  /** The kept part of today, e.g. "07:00–08:00 wake up and get ready". */
  done: string[];
  /** The item in progress that what came up cut short, with its place's number; else null. */
  interrupted: { description: string; place: number | null; until: string } | null;
  /** The rest of today as it was planned before, e.g. "13:00–17:00 at the lab: work". */
  planned: string[];
}

/** Inputs of {@linkcode buildDayPlanPrompt}. */
export interface DayPlanInput {
  agentName: string;
  /** The agent summary text (identity, core, occupation, feeling). */
  summary: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** The date's weekday, e.g. "Monday". */
  weekday: string;
  /** The previous day's plan items and recent reflections; may be empty. */
  previousDay: string[];
  /** What the character knows of the day's plans and engagements (memories); may be empty. */
  comingUp: string[];
  /** At least one place. */
  places: DayPlanPlace[];
  minItems: number;
  maxItems: number;
  /** Set when only the rest of the day is planned again. */
  remainder: DayPlanRemainder | null;
  /** The goals the day serves, most pressing first; absent or empty: none. */
  goals?: PlanGoal[];
}

/**
 * The answer: a wake-up time and items in time order, at least 5 minutes apart, each naming a
 * place by its number. Bounds (item count, place numbers, earliest start) come from the input.
 */
export function dayPlanSchema(
  input: Pick<DayPlanInput, "places" | "minItems" | "maxItems" | "remainder" | "goals">,
): ReturnType<typeof buildDayPlanSchema> {
  const key = [
    input.remainder?.from ?? "",
    input.places.length,
    input.minItems,
    input.maxItems,
    input.goals?.length ?? 0,
  ].join("|");
  return DAY_PLANS(key, () => buildDayPlanSchema(input));
}

const DAY_PLANS = schemaMemo<ReturnType<typeof buildDayPlanSchema>>();

function buildDayPlanSchema(
  input: Pick<DayPlanInput, "places" | "minItems" | "maxItems" | "remainder" | "goals">,
) {
  const from = input.remainder ? clockMinutes(input.remainder.from) : 0;
  return z.object({
    wakeUp: ClockTime,
    items: planSteps({
      place: z.number().int().min(1).max(input.places.length),
      ...goalField(input.goals ?? []),
    }, {
      bounds: { from, until: 1440 },
      maxMinutes: MAX_ITEM_MINUTES,
      count: { min: input.minItems, max: input.maxItems },
    }),
  });
}
export type DayPlanOutput = z.infer<ReturnType<typeof dayPlanSchema>>;

/** "2. Hobbs Cafe (workplace): cafe (counter, coffee machine: off)", the role left out for "known". */
function placeLine(place: DayPlanPlace, i: number): string {
  const role = place.role === "known" ? "" : ` (${place.role})`;
  return `${i + 1}. ${place.name}${role}${place.contents === "" ? "" : `: ${place.contents}`}`;
}

/**
 * Builds the day-plan prompt: from the agent summary and a summary of the previous day, the
 * day's agenda in broad strokes (paper: five to eight chunks), each with a start, a duration and
 * a place. With `remainder`, the same prompt plans only the rest of the day from a given time,
 * taking what came up into account (a re-plan after a reaction or a conversation).
 * @see Generative Agents §4.3 "Daily plan in broad strokes"; Park et al. 2023 §4.3.
 */
export function buildDayPlanPrompt(input: DayPlanInput): Prompt<DayPlanOutput> {
  const { minItems: min, maxItems: max, remainder } = input;
  const count = min === max ? `${min}` : `between ${min} and ${max}`;
  const rules = remainder ? remainderRules(remainder, count) : [
    `Write ${count} items. "wakeUp" is when the character gets up; the first item starts then, and the last one is winding down and getting ready for bed.`,
    "Stay true to the character's profile, and carry on with whatever was left unfinished the day before.",
  ];
  if (input.comingUp.length > 0) {
    rules.push(
      "Keep any engagement for this day the character knows of (listed with its plans and engagements), if it suits them.",
    );
  }
  rules.push(...goalRules(input.goals ?? []));
  if (!input.places.some((p) => p.role === "workplace")) {
    rules.push(
      "The character has no workplace among the places: plan no work shifts; fill the day with what the profile says they do (at home or at the places they know).",
    );
  }
  const user = [
    // Who the character is and the places it knows first (the same on each of its calls),
    // then the day.
    `Character: ${inertJson(input.agentName)}`,
    dataSection("Profile", "profile", profileText(input.summary)),
    dataSection(
      "Places the character knows, by number, with what they hold",
      "places",
      input.places.map(placeLine),
    ),
    `Date: ${input.weekday} ${input.date}`,
    dataSection(
      "The previous day",
      "yesterday",
      input.previousDay.map((note) => clipLine(note, NOTE_LINE_CHARS)),
    ),
  ];
  if (input.comingUp.length > 0) {
    user.push(dataSection(
      "What the character knows about this day's plans and engagements",
      "coming_up",
      input.comingUp.map((note) => clipLine(note, NOTE_LINE_CHARS)),
    ));
  }
  user.push(...goalSection(input.goals ?? []));
  if (remainder) {
    user.push(dataSection("Done today", "done_today", remainder.done));
    if (remainder.planned.length > 0) {
      user.push(dataSection("The rest of today as planned before", "planned", remainder.planned));
    }
    if (remainder.interrupted) {
      user.push(dataSection("Cut short by what came up", "interrupted", remainder.interrupted));
    }
    user.push(
      remainder.directive === null
        ? dataSection("What came up", "reason", remainder.reason)
        : dataSection(
          "What the character's own inner voice resolved",
          "resolve",
          remainder.directive,
        ),
    );
  }
  return chatPrompt({
    kind: "day_plan",
    tier: "main",
    input,
    schema: dayPlanSchema(input),
    maxTokens: 80 + 70 * max,
    // The rules every day plan shares first, those of this plan (its count, a re-plan's time)
    // last: the shared ones stay a prefix a provider's prompt cache reuses.
    rules: [
      "Sketch a day in the life of a character in a town simulation in broad strokes, the way they would outline it to themselves.",
      `Items are in time order, without overlaps or long unplanned stretches, and none lasts more than ${
        MAX_ITEM_MINUTES / 60
      } hours: split a long stretch (work before and after lunch; the evening into dinner, free time and getting ready for bed). Each has "start" (HH:MM), "durationMinutes", a short "description" beginning with a verb (such as "open the bakery and serve the morning customers") and "place": the number of the listed place where it mostly happens.`,
      'Answer with JSON {"wakeUp": "HH:MM", "items": [{"start": "HH:MM", "durationMinutes": 60, "description": "…", "place": 1}, …]}.',
      ...rules,
    ],
    user,
  });
}

/** The rules of a re-plan: the rest of the day as a day of its own, around what came up. */
function remainderRules(remainder: DayPlanRemainder, count: string): string[] {
  const rules = [
    "Part of today is over already (listed as done today), and something came up that changes the rest of it.",
    `Plan only the rest of the day: ${count} items, the first starting at ${remainder.from} or later, each ending by midnight. Deal with what came up first, then plan the rest as a proper day: the meals still ahead, work blocks, the evening and getting ready for bed. Set "wakeUp" to ${remainder.wakeUp}, the time the character got up today.`,
    "Keep what was planned before for the rest of today where it still fits, changing only what what came up changes.",
  ];
  if (remainder.interrupted) {
    rules.push(
      "What was cut short resumes, if it still fits, with the same description at the same place.",
    );
  }
  if (remainder.directive !== null) {
    rules.push(
      'The resolution is the character\'s own: make it an item in their own words, a short step beginning with a verb ("I should close the cafe early" becomes "close the cafe early"), never a quote of it.',
    );
  }
  return rules;
}
