/** @module Offline responder for the "hour_plan" prompt: the item cut into hour-long chunks. */
import { clockMinutes, type HourPlanInput, type HourPlanOutput } from "../../../src/domain/mod.ts";
import { asSteps, slices } from "./_plan_spans.ts";

/**
 * Cuts the item into 60-minute chunks from its start (a last one under 5 minutes joins the one
 * before), each described as the item with its part number, so the actions prompt can go on
 * through the activity's steps where the last hour left off.
 */
export function answerHourPlan(input: unknown): HourPlanOutput {
  const { item } = input as HourPlanInput;
  const parts = slices(clockMinutes(item.start), clockMinutes(item.end), 60);
  return {
    chunks: asSteps(parts.map(([start, end], n) => ({
      start,
      end,
      description: parts.length === 1
        ? item.description
        : `${item.description} (part ${n + 1} of ${parts.length})`.slice(0, 200),
    }))),
  };
}
