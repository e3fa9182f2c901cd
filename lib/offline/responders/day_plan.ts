/** @module Offline responder for the "day_plan" prompt: a fixed, plausible day's shape placed in the known places. */
import {
  clockMinutes,
  clockTime,
  type DayPlanInput,
  type DayPlanOutput,
  type DayPlanPlace,
} from "../../../src/domain/mod.ts";
import { asSteps, bestOverlap, fitCount, type Span } from "./_plan_spans.ts";
import { afterwards, ownWords } from "./_own_words.ts";

type Where =
  | "home"
  | "workplace"
  | "out"
  | "current"
  | "meal"
  | "errands"
  | "shopping"
  | "event";

interface Placed extends Span {
  where: Where;
  /** The place's 1-based number, when it is known already (an event's place). */
  place?: number;
}

const H = 60;

// A waking day from 07:00 to 23:00: 8 items on whole hours, none over 4 hours.
function workday(work: string): Placed[] {
  return [
    {
      start: 7 * H,
      end: 8 * H,
      description: "wake up and complete the morning routine",
      where: "home",
    },
    { start: 8 * H, end: 12 * H, description: `work${work}`, where: "workplace" },
    { start: 12 * H, end: 13 * H, description: "have lunch", where: "meal" },
    { start: 13 * H, end: 17 * H, description: `carry on working${work}`, where: "workplace" },
    { start: 17 * H, end: 18 * H, description: "take a walk and run errands", where: "errands" },
    { start: 18 * H, end: 19 * H, description: "cook and eat dinner", where: "home" },
    { start: 19 * H, end: 22 * H, description: "relax with a hobby", where: "home" },
    { start: 22 * H, end: 23 * H, description: "wind down and get ready for bed", where: "home" },
  ];
}

// The same waking day for someone without a workplace (retired, at home, a visitor): no work.
function freeDay(): Placed[] {
  return [
    {
      start: 7 * H,
      end: 8 * H,
      description: "wake up and complete the morning routine",
      where: "home",
    },
    { start: 8 * H, end: 12 * H, description: "take care of things at home", where: "home" },
    { start: 12 * H, end: 13 * H, description: "have lunch", where: "meal" },
    { start: 13 * H, end: 16 * H, description: "take a walk and see who is about", where: "out" },
    { start: 16 * H, end: 18 * H, description: "do the shopping", where: "shopping" },
    { start: 18 * H, end: 19 * H, description: "cook and eat dinner", where: "home" },
    { start: 19 * H, end: 22 * H, description: "relax with a hobby", where: "home" },
    { start: 22 * H, end: 23 * H, description: "wind down and get ready for bed", where: "home" },
  ];
}

const PREFERENCE: Record<Where, DayPlanPlace["role"][]> = {
  home: ["home", "current", "workplace", "known"],
  workplace: ["workplace", "current", "home", "known"],
  out: ["known", "current", "home", "workplace"],
  meal: ["known", "current", "home", "workplace"],
  errands: ["known", "current", "home", "workplace"],
  shopping: ["known", "current", "home", "workplace"],
  event: ["known", "workplace", "current", "home"],
  current: ["current", "home", "workplace", "known"],
};

/** Known places that suit going out for a meal, a walk and errands, shopping, an outing. */
const SUITS: Partial<Record<Where, RegExp>> = {
  meal: /\b(?:caf[eé]|pub|kettle|restaurant|diner|bakery|bistro|tavern|bar)\b/i,
  errands: /\b(?:park|green|garden|market|shop|store|pharmacy|square|library)\b/i,
  shopping: /\b(?:market|shop|store|pharmacy)\b/i,
  out: /\b(?:park|green|garden|square|pond)\b/i,
};

function placeNumber(places: readonly DayPlanPlace[], where: Where): number {
  const suits = SUITS[where];
  if (suits !== undefined) {
    // Where it is already counts: lunch begun at one cafe is not moved to another.
    const i = places.findIndex((p) =>
      (p.role === "known" || p.role === "current") && suits.test(p.name)
    );
    if (i !== -1) return i + 1;
  }
  for (const role of PREFERENCE[where]) {
    const i = places.findIndex((p) => p.role === role);
    if (i !== -1) return i + 1;
  }
  return 1;
}

const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

// "a Valentine's Day party at Marigold Cafe on February 14 from 5 pm to 7 pm"
const EVENT =
  /((?:\p{Lu}[\p{L}'’]*\s+){0,3}(?:party|celebration|festival|meeting|concert|wedding|dinner))\s+at\s+(\p{Lu}[\p{L}'’ ]+?)\s+on\s+(\p{L}+)\s+(\d{1,2})\s+from\s+(\d{1,2})(?::(\d\d))?\s*([ap]m)\s+to\s+(\d{1,2})(?::(\d\d))?\s*([ap]m)/u;

function minutesOf(hour: string, minute: string | undefined, half: string): number {
  const h = Number(hour) % 12 + (half.toLowerCase() === "pm" ? 12 : 0);
  return h * H + Number(minute ?? 0);
}

/**
 * An event the agent knows of on this date at one of its places ("… party at Marigold Cafe on
 * February 14 from 5 pm to 7 pm", in its profile, the notes of its last day, what it knows is
 * coming up or what came up, such as what someone just said), as a span.
 */
function eventToday(i: DayPlanInput): Placed | null {
  for (
    const text of [i.summary, ...i.previousDay, ...i.comingUp, i.remainder?.reason ?? ""]
  ) {
    const m = EVENT.exec(text);
    if (!m) continue;
    const [, what, place, month, day, h1, m1, p1, h2, m2, p2] = m;
    const date = `${String(MONTHS.indexOf(month.toLowerCase()) + 1).padStart(2, "0")}-${
      day.padStart(2, "0")
    }`;
    if (!i.date.endsWith(`-${date}`)) continue;
    const at = i.places.findIndex((p) => p.name.toLowerCase() === place.trim().toLowerCase());
    const start = minutesOf(h1, m1, p1);
    const end = minutesOf(h2, m2, p2);
    if (at === -1 || end <= start) continue;
    const name = what.trim();
    return {
      start,
      end,
      description: `go to the ${name} at ${place.trim()}`,
      where: "event",
      place: at + 1,
    };
  }
  return null;
}

/** The day's shape with an event put in: what overlaps it is cut back or dropped. */
function withEvent(day: Placed[], event: Placed | null): Placed[] {
  if (event === null) return day;
  const out: Placed[] = [];
  for (const t of day) {
    if (t.end <= event.start || t.start >= event.end) out.push(t);
    else {
      if (t.start < event.start) out.push({ ...t, end: event.start });
      if (t.end > event.end) out.push({ ...t, start: event.end });
    }
  }
  out.push(event);
  return out.sort((a, b) => a.start - b.start);
}

/** Where the day's shape has the agent at `minute` (its place, if known), else where it is. */
function placeAt(day: readonly Placed[], minute: number): Pick<Placed, "where" | "place"> {
  const during = day.find((t) => t.start <= minute && minute < t.end);
  return during ? { where: during.where, place: during.place } : { where: "current" };
}

/**
 * The rest of a day after something came up: half an hour for it (a directive of the inner voice
 * in the agent's own words, at the place it names; a talk thought over where the agent is), then
 * what it cut short, resumed at the same place, then the rest of the day's shape.
 */
function rest(i: DayPlanInput, day: readonly Placed[]): Placed[] {
  const r = i.remainder!;
  const from = clockMinutes(r.from);
  const first = Math.min(from + H / 2, 24 * H);
  const cut = r.interrupted;
  const here: Pick<Placed, "where" | "place"> = cut?.place
    ? { where: "current", place: cut.place }
    : placeAt(day, from);
  const named = r.directive === null ? null : bestOverlap(r.directive, i.places.map((p) => p.name));
  const out: Placed[] = [{
    ...(named === null ? here : { where: "current", place: named }),
    start: from,
    end: first,
    description: r.directive === null ? afterwards(r.reason) : ownWords(r.directive),
  }];
  let after = first;
  const until = cut ? clockMinutes(cut.until) : 0;
  if (cut && until - first >= 5) {
    out.push({ ...here, start: first, end: until, description: cut.description });
    after = until;
  }
  for (const t of day) {
    if (t.end > after) out.push({ ...t, start: Math.max(t.start, after) });
  }
  return out;
}

/**
 * Answers with the same day's shape every time, placed at home, the workplace or another known
 * place: wake at 07:00, work 08:00–17:00 around lunch (with a workplace; without one, the morning
 * at home and the afternoon out), errands, dinner, a hobby, bed at 23:00, with an event the agent
 * knows of today put in. A re-plan starts with half an hour for what came up, resumes what it
 * cut short at the same place, then goes on with the shape's remaining items; the count is
 * fitted to the input's bounds, no item over 6 hours.
 */
export function answerDayPlan(input: unknown): DayPlanOutput {
  const i = input as DayPlanInput;
  const workplace = i.places.find((p) => p.role === "workplace");
  const event = eventToday(i);
  const day = withEvent(workplace ? workday(` at ${workplace.name}`) : freeDay(), event);
  const spans = i.remainder === null ? day : rest(i, day);
  const fitted = fitCount(spans, i.minItems, i.maxItems);
  const goals = goalSlots(fitted, i.goals?.length ?? 0);
  return {
    wakeUp: i.remainder === null ? clockTime(day[0].start) : i.remainder.wakeUp,
    items: asSteps(fitted).map((step, n) => ({
      ...step,
      place: fitted[n].place ?? placeNumber(i.places, fitted[n].where),
      ...(i.goals?.length
        ? {
          description: goals[n] === null
            ? step.description
            : ownWords(i.goals[goals[n]! - 1].description),
          goal: goals[n],
        }
        : {}),
    })),
  };
}

/** Items of the day's shape with time to spare: where a goal fits. */
const FLEXIBLE = /\b(?:errands|walk|hobby|shopping|things at home)\b/;

/**
 * Which goal (1-based) each item serves: the most pressing goals (listed first) take the
 * items with time to spare, in order, one each; the others serve none.
 */
function goalSlots(spans: readonly Placed[], goals: number): (number | null)[] {
  let next = 1;
  return spans.map((s) => (next <= goals && FLEXIBLE.test(s.description) ? next++ : null));
}
