/**
 * @module Re-planning the rest of a day (Generative Agents §4.3): how many items the rest gets,
 * what was interrupted and where it resumes, and a directive of the agent's inner voice. Pure
 * helpers of `replanFrom`; the cut itself is in `plan.ts`.
 */
import { DAY_MINUTES, minuteOfDay, timeAt } from "../time/mod.ts";
import { DAY_PLAN_ITEMS, type DayPlan, type PlanItem } from "./plan.ts";

/** One item per this many minutes of the rest of a day, at least, when it is planned again. */
const MINUTES_PER_ITEM = 180;

/**
 * How many items the rest of the day from minute `cut` gets: one per three hours left (at least
 * one, at most the day plan's minimum) up to the day plan's maximum. A re-plan plans the rest as
 * a day of its own (meals, work blocks, evening, bed), however many items the morning used:
 * bounding the rest by what is left of 8 items squeezed a late re-plan into one block to midnight.
 */
export function remainderBounds(cut: number): { minItems: number; maxItems: number } {
  const left = Math.max(0, DAY_MINUTES - cut);
  const minItems = Math.max(
    1,
    Math.min(DAY_PLAN_ITEMS.min, Math.ceil(left / MINUTES_PER_ITEM), Math.floor(left / 5)),
  );
  return { minItems, maxItems: Math.max(minItems, DAY_PLAN_ITEMS.max) };
}

/** The items of `plan` from minute `cut` on, the one in progress starting at `cut`. */
export function plannedAfter(plan: DayPlan, cut: number): PlanItem[] {
  const from = timeAt(plan.date, cut);
  return plan.items
    .filter((item) => minuteOfDay(plan.date, item.end) > cut)
    .map((item) => (item.start < from ? { ...item, start: from } : item));
}

/** The item a re-plan from minute `cut` interrupts (begun before it, ending after), if any. */
export function interruptedItem(plan: DayPlan, cut: number): PlanItem | undefined {
  return plan.items.find((item) =>
    minuteOfDay(plan.date, item.start) < cut && cut < minuteOfDay(plan.date, item.end)
  );
}

/**
 * New items with the interrupted item's place wherever they take it up again (the same
 * description): an activity cut short by what came up resumes where it was, never at another
 * place of the same kind (lunch begun at one cafe is not finished at another).
 */
export function resumedInPlace(
  items: readonly PlanItem[],
  interrupted: Pick<PlanItem, "description" | "location"> | undefined,
): PlanItem[] {
  if (interrupted === undefined) return [...items];
  const same = normalized(interrupted.description);
  return items.map((item) =>
    normalized(item.description) === same ? { ...item, location: interrupted.location } : item
  );
}

function normalized(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ");
}

/** What `respond` puts before an inner-voice directive when it makes the agent re-plan. */
const INNER_VOICE = /^inner voice:\s*/i;

/**
 * The directive of a re-plan the inner voice asked for (`respond` in `inner_voice` mode gives the
 * reason "inner voice: <directive>"), or null for any other reason.
 */
export function innerVoiceDirective(reason: string): string | null {
  const m = INNER_VOICE.exec(reason);
  const text = m ? reason.slice(m[0].length).trim() : "";
  return text === "" ? null : text;
}
