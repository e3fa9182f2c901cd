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
  type GameAction,
  locationChoices,
  MAX_MINUTES,
  minuteOfDay,
  PlannedAction,
  type ProposedAction,
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
 * the world has one): one `plan.actions` call. With the game's actions, the same call says
 * which step is one of them: `proposed` holds, per action, the game action the model chose for
 * it (unchecked), or null.
 */
export async function decomposeChunk(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  { env, plan, index, chunk: c, profile, gameActions = [] }: DecomposeRequest & {
    env: Environment | null;
    /** The chunk's index in the item's `chunks`. */
    chunk: number;
    /** The world's registered actions. @default none */
    gameActions?: readonly GameAction[];
  },
): Promise<PlacedActions & { usage: Usage }> {
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
      ...(gameActions.length > 0 ? { gameActions: [...gameActions] } : {}),
    }),
    operation: "plan.actions",
  });
  const placed = placedActions(completion.value.actions, {
    date: plan.date,
    span: { lo, hi },
    locations,
    fallback: chunk.description,
  });
  return { ...placed, usage: completion.usage };
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

/** Actions as the plan stores them, and the game action proposed for each (unchecked) or null. */
export interface PlacedActions {
  actions: PlannedAction[];
  proposed: (ProposedAction | null)[];
}

/**
 * Answered actions as the plan stores them: fitted to cover the stretch without overlaps (at
 * most an hour each), placed at the locations their numbers name; the stretch as one action at
 * the first location when none fit. A step split in pieces proposes its game action once, by
 * its first piece.
 */
export function placedActions(
  answered: readonly (Omit<ActionsOutput["actions"][number], "game_action"> & {
    game_action?: ProposedAction | null;
  })[],
  { date, span, locations, fallback }: ActionPlacement,
): PlacedActions {
  const spans = fitSpans(
    answered.map((a) => ({
      start: clockMinutes(a.start),
      minutes: a.durationMinutes,
      value: {
        description: a.description.trim(),
        location: locations[a.location - 1].path,
        emoji: a.emoji.replace(/\s+/g, ""),
        proposed: a.game_action ?? null,
      },
    })),
    { ...span, cover: true, maxMinutes: MAX_MINUTES },
  );
  const only = { description: fallback, location: locations[0].path, emoji: "🙂", proposed: null };
  const pieces = spans.length > 0
    ? spans
    : splitEven({ start: span.lo, end: span.hi, value: only }, MAX_MINUTES);
  const actions = pieces.map(({ start, end, value: { proposed: _, ...value } }): PlannedAction => ({
    start: timeAt(date, start),
    end: timeAt(date, end),
    ...value,
  }));
  const proposed = pieces.map((p, i) =>
    i > 0 && pieces[i - 1].value === p.value ? null : p.value.proposed
  );
  return { actions, proposed };
}
