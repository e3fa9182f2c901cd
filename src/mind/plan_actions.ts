/** @module Decomposing just in time (Generative Agents §4.3): an hour chunk into 5–60-minute actions. */
import type { Deps } from "../ports/mod.ts";
import {
  type ActionLocation,
  type ActionsOutput,
  type AgentContext,
  buildActionsPrompt,
  clockMinutes,
  clockTime,
  currentAreaOf,
  DayPlan,
  type Environment,
  fitSpans,
  locationChoices,
  MAX_MINUTES,
  minuteOfDay,
  PlannedAction,
  splitEven,
  timeAt,
  type Usage,
} from "../domain/mod.ts";
import { completeFor } from "./_complete.ts";

/** Which part of a plan to decompose, and the planning profile the prompt shows. */
export interface DecomposeRequest {
  plan: DayPlan;
  /** The broad item's index in `plan.items`. */
  index: number;
  profile: string;
}

/**
 * An hour chunk decomposed into actions that cover it, each at a place of the environment (when
 * the world has one): one `plan.actions` call.
 */
export async function decomposeChunk(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  { env, plan, index, chunk: c, profile }: DecomposeRequest & {
    env: Environment | null;
    /** The chunk's index in the item's `chunks`. */
    chunk: number;
  },
): Promise<{ actions: PlannedAction[]; usage: Usage }> {
  const { agent } = ctx;
  const item = plan.items[index];
  const chunk = item.chunks![c];
  const lo = minuteOfDay(plan.date, chunk.start);
  const hi = minuteOfDay(plan.date, chunk.end);
  const locations = locationChoices(env, agent, item.location);
  const currentArea = env ? currentAreaOf(env, agent)?.name ?? null : null;
  const completion = await completeFor(deps, ctx, {
    prompt: buildActionsPrompt({
      agentName: agent.name,
      summary: profile,
      date: plan.date,
      item: item.description,
      chunk: { start: clockTime(lo), end: clockTime(hi), description: chunk.description },
      locations,
      currentLocation: agent.location,
      currentArea,
      plannedArea: item.location,
    }),
    operation: "plan.actions",
  });
  const actions = placedActions(completion.value.actions, {
    date: plan.date,
    span: { lo, hi },
    locations,
    fallback: chunk.description,
  });
  return { actions, usage: completion.usage };
}

/** Where and when actions answered for one stretch of a plan go. */
export interface ActionPlacement {
  date: string;
  /** The stretch, in minutes of the day. */
  span: { lo: number; hi: number };
  /** The numbered locations the answer's `location` numbers point into (1-based). */
  locations: readonly ActionLocation[];
  /** The stretch's description: its one action when the answer has none that fit. */
  fallback: string;
}

/**
 * Answered actions as the plan stores them: fitted to cover the stretch without overlaps (at
 * most an hour each), placed at the locations their numbers name; the stretch as one action at
 * the first location when none fit.
 */
export function placedActions(
  answered: readonly ActionsOutput["actions"][number][],
  { date, span, locations, fallback }: ActionPlacement,
): PlannedAction[] {
  const spans = fitSpans(
    answered.map((a) => ({
      start: clockMinutes(a.start),
      minutes: a.durationMinutes,
      value: {
        description: a.description.trim(),
        location: locations[a.location - 1].path,
        emoji: a.emoji.replace(/\s+/g, ""),
      },
    })),
    { ...span, cover: true, maxMinutes: MAX_MINUTES },
  );
  const only = { description: fallback, location: locations[0].path, emoji: "🙂" };
  return (spans.length > 0
    ? spans
    : splitEven({ start: span.lo, end: span.hi, value: only }, MAX_MINUTES))
    .map((s): PlannedAction => ({
      start: timeAt(date, s.start),
      end: timeAt(date, s.end),
      ...s.value,
    }));
}
