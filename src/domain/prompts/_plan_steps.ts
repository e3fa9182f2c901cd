/** @module Shared pieces of the planning prompts' output schemas: ordered steps and emoji. */
import { z } from "zod";
import { clockMinutes, ClockTime, clockTime } from "../time/mod.ts";

/** The shortest step any plan level holds, in minutes. */
export const MIN_STEP_MINUTES = 5;

/** Bounds a list of steps must respect, in minutes since midnight. */
export interface StepBounds {
  /** No step starts before this minute. */
  from: number;
  /** Every step ends by this minute, so none starts later than 5 minutes before it. */
  until: number;
  /** Where the steps are in the answer, for the issues' paths (default: the list checked). */
  at?: readonly (string | number)[];
}

/**
 * Checks that steps start in time order, at least 5 minutes apart, within the bounds. Plan code
 * turns ordered steps into contiguous spans without dropping any, so a list that passes keeps
 * its length; a model that breaks the order gets the problem back in its repair attempt.
 */
export function checkStepOrder(
  steps: readonly { start: string }[],
  bounds: StepBounds,
  ctx: z.RefinementCtx,
): void {
  let previous = -Infinity;
  steps.forEach((step, i) => {
    const start = clockMinutes(step.start);
    if (start < bounds.from || start > bounds.until - MIN_STEP_MINUTES) {
      ctx.addIssue({
        code: "custom",
        path: [...bounds.at ?? [], i, "start"],
        message: `Start between ${clockTime(bounds.from)} and ${
          clockTime(bounds.until - MIN_STEP_MINUTES)
        }`,
      });
    }
    if (start < previous + MIN_STEP_MINUTES) {
      ctx.addIssue({
        code: "custom",
        path: [...bounds.at ?? [], i, "start"],
        message:
          `List steps in time order, each starting at least ${MIN_STEP_MINUTES} minutes after the one before`,
      });
    }
    previous = start;
  });
}

/** How a plan level's steps are bounded: their span, the longest step, how many there are. */
export interface StepLimits {
  bounds: StepBounds;
  /** The longest step, in minutes. */
  maxMinutes: number;
  /** Fewest and most steps. */
  count: { min: number; max: number };
}

/**
 * The steps of one plan level (the day's items, an item's hour chunks, a chunk's actions): each
 * with a start, a duration and a description, plus the level's own `fields`; in time order
 * within the bounds ({@linkcode checkStepOrder}).
 */
export function planSteps<T extends z.ZodRawShape>(fields: T, limits: StepLimits) {
  return z
    .array(z.object({
      start: ClockTime,
      durationMinutes: z.number().int().min(MIN_STEP_MINUTES).max(limits.maxMinutes),
      description: z.string().min(1).max(200),
      ...fields,
    }))
    .min(limits.count.min)
    .max(limits.count.max)
    // Every step has a start; the compiler cannot see it through the generic fields.
    .superRefine((steps, ctx) => checkStepOrder(steps as { start: string }[], limits.bounds, ctx));
}

const EMOJI_GRAPHEME = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;

/** One segmenter for every call: making one per emoji checked was a visible share of planning. */
const GRAPHEMES = new Intl.Segmenter("en", { granularity: "grapheme" });

/** The emoji of a string, one per grapheme; null when it holds anything that is not an emoji. */
export function emojiGraphemes(text: string): string[] | null {
  const graphemes = [...GRAPHEMES.segment(
    text.replace(/\s+/g, ""),
  )].map((s) => s.segment);
  return graphemes.every((g) => EMOJI_GRAPHEME.test(g)) ? graphemes : null;
}

/** One to three emoji (whitespace between them is allowed), e.g. "☕" or "🧹 🪑". */
export const EmojiRendering = z
  .string()
  .min(1)
  .max(32)
  .refine((text) => {
    const emoji = emojiGraphemes(text);
    return emoji !== null && emoji.length >= 1 && emoji.length <= 3;
  }, "Give 1 to 3 emoji and nothing else");
