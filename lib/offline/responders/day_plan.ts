/** @module Offline responder for the "day_plan" prompt: a fixed, plausible weekday shape placed in the known places. */
import type { DayPlanInput, DayPlanOutput, DayPlanPlace } from "../../../src/prompts/day_plan.ts";
import { clockMinutes, clockTime } from "../../../src/time/time_of_day.ts";
import { asSteps, fitCount, type Span } from "./_plan_spans.ts";

type Where = "home" | "workplace" | "out" | "current";

interface Placed extends Span {
  where: Where;
}

const H = 60;

// A waking day from 07:00 to 23:00: 8 items on whole hours.
function weekday(work: string): Placed[] {
  return [
    {
      start: 7 * H,
      end: 8 * H,
      description: "wake up and complete the morning routine",
      where: "home",
    },
    { start: 8 * H, end: 12 * H, description: `work${work}`, where: "workplace" },
    { start: 12 * H, end: 13 * H, description: "have lunch", where: "out" },
    { start: 13 * H, end: 17 * H, description: `carry on working${work}`, where: "workplace" },
    { start: 17 * H, end: 18 * H, description: "take a walk and run errands", where: "out" },
    { start: 18 * H, end: 19 * H, description: "cook and eat dinner", where: "home" },
    { start: 19 * H, end: 22 * H, description: "relax with a hobby", where: "home" },
    { start: 22 * H, end: 23 * H, description: "wind down and get ready for bed", where: "home" },
  ];
}

const PREFERENCE: Record<Where, DayPlanPlace["role"][]> = {
  home: ["home", "current", "workplace", "known"],
  workplace: ["workplace", "current", "home", "known"],
  out: ["known", "current", "home", "workplace"],
  current: ["current", "home", "workplace", "known"],
};

function placeNumber(places: readonly DayPlanPlace[], where: Where): number {
  for (const role of PREFERENCE[where]) {
    const i = places.findIndex((p) => p.role === role);
    if (i !== -1) return i + 1;
  }
  return 1;
}

/**
 * Answers with the same weekday shape every time (wake at 07:00, work 08:00–17:00 around lunch,
 * errands, dinner, a hobby, bed at 23:00), placed at home, the workplace or another known place.
 * A re-plan starts with an hour for what came up, then the shape's remaining items; the count is
 * fitted to the input's bounds.
 */
export function answerDayPlan(input: unknown): DayPlanOutput {
  const i = input as DayPlanInput;
  const workplace = i.places.find((p) => p.role === "workplace");
  const day = weekday(workplace ? ` at ${workplace.name}` : "");
  let spans = day;
  if (i.remainder !== null) {
    const from = clockMinutes(i.remainder.from);
    const first = Math.min(from + H, 24 * H);
    const reason = `deal with what came up: ${i.remainder.reason}`.slice(0, 200);
    spans = [
      { start: from, end: first, description: reason, where: "current" },
      ...day.filter((t) => t.end > first).map((t) => ({ ...t, start: Math.max(t.start, first) })),
    ];
  }
  const fitted = fitCount(spans, i.minItems, i.maxItems);
  return {
    wakeUp: i.remainder === null ? clockTime(day[0].start) : i.remainder.wakeUp,
    items: asSteps(fitted).map((step, n) => ({
      ...step,
      place: placeNumber(i.places, fitted[n].where),
    })),
  };
}
