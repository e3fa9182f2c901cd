/**
 * @module Decomposing just in time (Generative Agents §4.3): a broad plan item into hour chunks
 * and their 5–60-minute actions in one call.
 */
import type { Deps } from "../ports/mod.ts";
import {
  type AgentContext,
  buildItemPlanPrompt,
  clockMinutes,
  clockTime,
  currentAreaOf,
  type Environment,
  fitSpans,
  type GameAction,
  HourChunk,
  locationChoices,
  MAX_MINUTES,
  minuteOfDay,
  type ProposedAction,
  splitEven,
  timeAt,
  type Usage,
} from "../domain/mod.ts";
import { type DecomposeRequest, placedActions } from "./plan_actions.ts";
import { completeFor } from "./_complete.ts";

/**
 * A broad plan item decomposed into hour chunks that cover it, each chunk into actions that
 * cover it at places of the environment (when the world has one): one `plan.decompose` call.
 * A chunk whose actions did not fit is one action; an answer without chunks that fit gives
 * hour-long chunks of the item. With the game's actions, the same call says which action is one
 * of them: `proposed[c][i]` is the game action the model chose for action `i` of chunk `c`
 * (unchecked), or null.
 */
export async function decomposeItemFully(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  { env, plan, index, profile, gameActions = [] }: DecomposeRequest & {
    env: Environment | null;
    /** The world's registered actions. @default none */
    gameActions?: readonly GameAction[];
  },
): Promise<{ chunks: HourChunk[]; proposed: (ProposedAction | null)[][]; usage: Usage }> {
  const { agent } = ctx;
  const item = plan.items[index];
  const lo = minuteOfDay(plan.date, item.start);
  const hi = minuteOfDay(plan.date, item.end);
  const locations = locationChoices(env, agent, item.location);
  const completion = await completeFor(deps, ctx, {
    prompt: buildItemPlanPrompt({
      agentName: agent.name,
      summary: profile,
      date: plan.date,
      item: {
        start: clockTime(lo),
        end: clockTime(hi),
        description: item.description,
        place: item.location,
      },
      before: plan.items[index - 1]?.description ?? null,
      after: plan.items[index + 1]?.description ?? null,
      locations,
      currentLocation: agent.location,
      currentArea: env ? currentAreaOf(env, agent)?.name ?? null : null,
      ...(gameActions.length > 0 ? { gameActions: [...gameActions] } : {}),
    }),
    operation: "plan.decompose",
  });
  const spans = fitSpans(
    completion.value.chunks.map((c) => ({
      start: clockMinutes(c.start),
      minutes: c.durationMinutes,
      value: { description: c.description.trim(), actions: c.actions },
    })),
    { lo, hi, cover: true, maxMinutes: MAX_MINUTES },
  );
  const placed = (spans.length > 0 ? spans : splitEven(
    { start: lo, end: hi, value: { description: item.description, actions: [] } },
    MAX_MINUTES,
  ))
    .map((s) => ({
      chunk: s,
      ...placedActions(s.value.actions, {
        date: plan.date,
        span: { lo: s.start, hi: s.end },
        locations,
        fallback: s.value.description,
      }),
    }));
  const chunks = placed.map(({ chunk: s, actions }): HourChunk => ({
    start: timeAt(plan.date, s.start),
    end: timeAt(plan.date, s.end),
    description: s.value.description,
    actions,
  }));
  return { chunks, proposed: placed.map((p) => p.proposed), usage: completion.usage };
}
