/**
 * @module Offline responder for the "item_plan" prompt: the item cut into hour-long chunks, each
 * cut into the activity's steps at fitting objects, as the hour-plan and actions responders did
 * in two calls; with the game's actions, a step that is one of them proposes it, as the actions
 * responder does.
 */
import {
  type ActionsInput,
  clockMinutes,
  clockTime,
  type ItemPlanInput,
  type ItemPlanOutput,
} from "../../../src/domain/mod.ts";
import { answerActions } from "./actions.ts";
import { asSteps, slices } from "./_plan_spans.ts";

/**
 * Cuts the item into 60-minute chunks from its start (a last one under 5 minutes joins the one
 * before), each described as the item with its part number, so its actions go on through the
 * activity's steps where the last hour left off; then answers each chunk as the actions
 * responder does.
 */
export function answerItemPlan(input: unknown): ItemPlanOutput {
  const i = input as ItemPlanInput;
  const { item } = i;
  const parts = slices(clockMinutes(item.start), clockMinutes(item.end), 60);
  const chunks = asSteps(parts.map(([start, end], n) => ({
    start,
    end,
    description: parts.length === 1
      ? item.description
      : `${item.description} (part ${n + 1} of ${parts.length})`.slice(0, 200),
  })));
  return {
    chunks: chunks.map((chunk, n) => {
      const asked: ActionsInput = {
        agentName: i.agentName,
        summary: i.summary,
        date: i.date,
        item: item.description,
        chunk: { start: chunk.start, end: clockTime(parts[n][1]), description: chunk.description },
        locations: i.locations,
        currentLocation: i.currentLocation,
        currentArea: i.currentArea,
        plannedArea: item.place,
        ...(i.gameActions?.length ? { gameActions: i.gameActions } : {}),
      };
      return { ...chunk, actions: answerActions(asked).actions };
    }),
  };
}
