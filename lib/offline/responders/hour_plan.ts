/** @module Offline responder for the "hour_plan" prompt: the item cut into hour-long chunks. */
import type { HourPlanInput, HourPlanOutput } from "../../../src/prompts/hour_plan.ts";
import { clockMinutes } from "../../../src/time/time_of_day.ts";
import { asSteps, slices } from "./_plan_spans.ts";

/**
 * Cuts the item into 60-minute chunks from its start (a last one under 5 minutes joins the one
 * before), each described as the item: the actions prompt varies the steps within each hour.
 */
export function answerHourPlan(input: unknown): HourPlanOutput {
  const { item } = input as HourPlanInput;
  const parts = slices(clockMinutes(item.start), clockMinutes(item.end), 60);
  return {
    chunks: asSteps(parts.map(([start, end]) => ({ start, end, description: item.description }))),
  };
}
