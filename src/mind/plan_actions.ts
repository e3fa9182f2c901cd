/** @module Decomposing just in time (Generative Agents §4.3): an hour chunk into 5–60-minute actions. */
import type { Deps } from "../ports/mod.ts";
import {
  type AgentContext,
  buildActionsPrompt,
  clockMinutes,
  clockTime,
  currentAreaOf,
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
import type { DecomposeRequest } from "./hour_plan.ts";
import { completeFor } from "./_complete.ts";

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
): Promise<{ actions: PlannedAction[]; proposed: (ProposedAction | null)[]; usage: Usage }> {
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
  const spans = fitSpans(
    completion.value.actions.map((a) => ({
      start: clockMinutes(a.start),
      minutes: a.durationMinutes,
      value: {
        description: a.description.trim(),
        location: locations[a.location - 1].path,
        emoji: a.emoji.replace(/\s+/g, ""),
        proposed: a.game_action ?? null,
      },
    })),
    { lo, hi, cover: true, maxMinutes: MAX_MINUTES },
  );
  const fallback = {
    description: chunk.description,
    location: locations[0].path,
    emoji: "🙂",
    proposed: null,
  };
  const pieces = spans.length > 0
    ? spans
    : splitEven({ start: lo, end: hi, value: fallback }, MAX_MINUTES);
  const actions = pieces.map(({ start, end, value: { proposed: _, ...value } }): PlannedAction => ({
    start: timeAt(plan.date, start),
    end: timeAt(plan.date, end),
    ...value,
  }));
  // A step split in pieces is asked of the game once, by its first piece.
  const proposed = pieces.map((p, i) =>
    i > 0 && pieces[i - 1].value === p.value ? null : p.value.proposed
  );
  return { actions, proposed, usage: completion.usage };
}
