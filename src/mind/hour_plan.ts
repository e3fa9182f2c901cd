/** @module Decomposing just in time (Generative Agents §4.3): a broad plan item into hour chunks. */
import type { Deps } from "../ports/mod.ts";
import {
  type AgentContext,
  buildHourPlanPrompt,
  clockMinutes,
  clockTime,
  DayPlan,
  fitSpans,
  HourChunk,
  MAX_MINUTES,
  minuteOfDay,
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

/** A broad plan item decomposed into hour chunks that cover it: one `plan.hour` call. */
export async function decomposeItem(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  { plan, index, profile }: DecomposeRequest,
): Promise<{ chunks: HourChunk[]; usage: Usage }> {
  const item = plan.items[index];
  const lo = minuteOfDay(plan.date, item.start);
  const hi = minuteOfDay(plan.date, item.end);
  const completion = await completeFor(deps, ctx, {
    prompt: buildHourPlanPrompt({
      agentName: ctx.agent.name,
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
    }),
    operation: "plan.hour",
  });
  const spans = fitSpans(
    completion.value.chunks.map((c) => ({
      start: clockMinutes(c.start),
      minutes: c.durationMinutes,
      value: c.description.trim(),
    })),
    { lo, hi, cover: true, maxMinutes: MAX_MINUTES },
  );
  const chunks =
    (spans.length > 0
      ? spans
      : splitEven({ start: lo, end: hi, value: item.description }, MAX_MINUTES))
      .map((s): HourChunk => ({
        start: timeAt(plan.date, s.start),
        end: timeAt(plan.date, s.end),
        description: s.value,
        actions: null,
      }));
  return { chunks, usage: completion.usage };
}
