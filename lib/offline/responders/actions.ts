/** @module Offline responder for the "actions" prompt: the activity's steps in turn, each at a fitting object of the planned area. */
import { type ActionsInput, type ActionsOutput, clockMinutes } from "../../../src/domain/mod.ts";
import { type Activity, activityOf, progressive } from "./_activities.ts";
import { pickGameActions } from "./_game_actions.ts";
import { asSteps, bestOverlap, emojiFor, slices, type Span } from "./_plan_spans.ts";

/**
 * Minutes per action. Every change of action is an observation for everyone in the area (an
 * importance score and a step towards reflecting), so half-hour steps keep a busy cafe's cost
 * within budget; the paper's 5–15-minute actions would double it.
 */
const STEP_MINUTES = 30;

/** The 1-based numbers of the listed locations in an area (the area itself, or inside it). */
function inArea(input: ActionsInput, area: string | null): number[] {
  if (area === null) return [];
  const prefix = area.toLowerCase();
  const out: number[] = [];
  input.locations.forEach((l, i) => {
    const path = l.path.toLowerCase();
    if (path === prefix || path.startsWith(`${prefix}:`)) out.push(i + 1);
  });
  return out;
}

/**
 * Where a step happens, within the planned area: the location sharing most words with the step
 * ("make coffee" → the coffee machine), else an object the activity uses (a bed to sleep, a
 * stove to cook), else the location sharing most words with the plan item, else the area's
 * first location; outside it, one in the current area, else the first listed.
 */
function placeOf(input: ActionsInput, step: string, activity: Activity | null): number {
  const area = inArea(input, input.plannedArea);
  const paths = area.map((n) => input.locations[n - 1].path);
  const objectOf = (n: number) => input.locations[n - 1].path.split(":").at(-1) ?? "";
  const byStep = bestOverlap(step, paths);
  if (byStep !== null) return area[byStep - 1];
  const fitting = activity === null
    ? undefined
    : area.find((n) => activity.objects.test(objectOf(n)));
  if (fitting !== undefined) return fitting;
  const byItem = bestOverlap(input.item, paths);
  if (byItem !== null) return area[byItem - 1];
  return area[0] ?? inArea(input, input.currentArea)[0] ?? 1;
}

/**
 * Cuts the chunk into half-hour actions from its start (a last one under 5 minutes joins the one
 * before) and gives them the activity's steps in turn, going on where the item's last hour left off,
 * so a long item does not repeat itself hour after hour; the same step twice in a row becomes
 * one longer action. An unknown activity is the chunk's own description throughout. Steps read
 * as they follow "<name> is" ("working at the cafe"), the way others will see them.
 */
export function answerActions(input: unknown): ActionsOutput {
  const i = input as ActionsInput;
  const part = /\s*\(part (\d+) of \d+\)$/.exec(i.chunk.description);
  const base = part ? i.chunk.description.slice(0, part.index).trim() : i.chunk.description.trim();
  const activity = activityOf(base) ?? activityOf(i.item);
  const start = clockMinutes(i.chunk.start);
  // Steps go on where the item's previous hour left off.
  const offset = part ? (Number(part[1]) - 1) * (60 / STEP_MINUTES) : 0;
  const steps = activity?.steps ?? ["{item}"];
  const spans: Span[] = [];
  for (const [from, to] of slices(start, clockMinutes(i.chunk.end), STEP_MINUTES)) {
    const step = steps[(offset + spans.length) % steps.length].replace("{item}", progressive(base))
      .slice(0, 200);
    const last = spans.at(-1);
    if (last && last.description === step && to - last.start <= 60) last.end = to;
    else spans.push({ start: from, end: to, description: step });
  }
  return {
    actions: asSteps(spans).map((step) => ({
      ...step,
      location: placeOf(i, step.description, activity),
      emoji: emojiFor(`${step.description} ${base}`),
      // A step that is one of the game's actions ("lighting the lantern"), as a command says it.
      ...(i.gameActions?.length
        ? { game_action: pickGameActions(step.description, i.gameActions)[0] ?? null }
        : {}),
    })),
  };
}
