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
  HourChunk,
  locationChoices,
  MAX_MINUTES,
  minuteOfDay,
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
 * hour-long chunks of the item.
 */
export async function decomposeItemFully(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  { env, plan, index, profile }: DecomposeRequest & { env: Environment | null },
): Promise<{ chunks: HourChunk[]; usage: Usage }> {
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
  const chunks = (spans.length > 0 ? spans : splitEven(
    { start: lo, end: hi, value: { description: item.description, actions: [] } },
    MAX_MINUTES,
  ))
    .map((s): HourChunk => ({
      start: timeAt(plan.date, s.start),
      end: timeAt(plan.date, s.end),
      description: s.value.description,
      actions: placedActions(s.value.actions, {
        date: plan.date,
        span: { lo: s.start, hi: s.end },
        locations,
        fallback: s.value.description,
      }).actions,
    }));
  return { chunks, usage: completion.usage };
}
