/** @module A day plan in broad strokes, or the rest of a day planned again (Generative Agents §4.3). */
import type { Deps } from "../ports/mod.ts";
import {
  type AgentContext,
  buildDayPlanPrompt,
  type DayPlanInput,
  type DayPlanOutput,
  type Usage,
  weekdayOf,
} from "../domain/mod.ts";
import { completeFor } from "./_complete.ts";

/** What the day plan prompt shows besides the agent's name and the weekday of `date`. */
export type DayPlanRequest = Omit<DayPlanInput, "agentName" | "weekday">;

/**
 * The model's plan of the day: one `plan.day` call, or one `plan.replan` call when `remainder`
 * asks for the rest of the day only.
 */
export async function planDay(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  request: DayPlanRequest,
): Promise<{ value: DayPlanOutput; usage: Usage }> {
  return await completeFor(deps, ctx, {
    prompt: buildDayPlanPrompt({
      ...request,
      agentName: ctx.agent.name,
      weekday: weekdayOf(request.date),
    }),
    operation: request.remainder === null ? "plan.day" : "plan.replan",
  });
}
