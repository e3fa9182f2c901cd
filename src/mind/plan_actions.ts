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
  locationChoices,
  MAX_MINUTES,
  minuteOfDay,
  PlannedAction,
  splitEven,
  timeAt,
  type Usage,
} from "../domain/mod.ts";
import type { DecomposeRequest } from "./hour_plan.ts";
import { completeFor } from "./_complete.ts";

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
  const spans = fitSpans(
    completion.value.actions.map((a) => ({
      start: clockMinutes(a.start),
      minutes: a.durationMinutes,
      value: {
        description: a.description.trim(),
        location: locations[a.location - 1].path,
        emoji: a.emoji.replace(/\s+/g, ""),
      },
    })),
    { lo, hi, cover: true, maxMinutes: MAX_MINUTES },
  );
  const fallback = { description: chunk.description, location: locations[0].path, emoji: "🙂" };
  const actions =
    (spans.length > 0 ? spans : splitEven({ start: lo, end: hi, value: fallback }, MAX_MINUTES))
      .map((s): PlannedAction => ({
        start: timeAt(plan.date, s.start),
        end: timeAt(plan.date, s.end),
        ...s.value,
      }));
  return { actions, usage: completion.usage };
}
