/** @module Prompt: break one broad item of a day plan into hour-long chunks that cover it (Generative Agents §4.3). */
import { z } from "zod";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { inertJson, profileText } from "./data_block.ts";
import { clockMinutes } from "../time/mod.ts";
import { planSteps } from "./_plan_steps.ts";

/** Inputs of {@linkcode buildHourPlanPrompt}. */
export interface HourPlanInput {
  agentName: string;
  /** A profile: the agent's identity line, core characteristics and occupation. */
  summary: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** The broad item to decompose; `end` may be "24:00". */
  item: { start: string; end: string; description: string; place: string };
  /** The items just before and after, for continuity; null at the edges of the day. */
  before: string | null;
  after: string | null;
}

/** Chunks in time order inside the item, at least 5 minutes apart. */
export function hourPlanSchema(input: Pick<HourPlanInput, "item">) {
  const bounds = { from: clockMinutes(input.item.start), until: clockMinutes(input.item.end) };
  return z.object({
    chunks: planSteps({}, { bounds, maxMinutes: 120, count: { min: 1, max: 24 } }),
  });
}
export type HourPlanOutput = z.infer<ReturnType<typeof hourPlanSchema>>;

/**
 * Builds the hour-plan prompt: one broad item ("work on the composition from 13:00 to 17:00")
 * becomes steps of about an hour that fill it ("13:00 brainstorm ideas", …). Only the item in
 * progress is decomposed, just in time, because plans change.
 * @see Generative Agents §4.3 "Decompose top-down: hour-long chunks"; Park et al. 2023 §4.3.
 */
export function buildHourPlanPrompt(input: HourPlanInput): Prompt<HourPlanOutput> {
  const { start, end } = input.item;
  return chatPrompt({
    kind: "hour_plan",
    tier: "main",
    input,
    schema: hourPlanSchema(input),
    maxTokens: 60 + 50 * Math.ceil((clockMinutes(end) - clockMinutes(start)) / 60),
    rules: [
      `Split one block of a character's day plan, from ${start} to ${end}, into steps of about 60 minutes (the first or last may be shorter), in time order, filling the block without overlaps.`,
      'Each step has "start" (HH:MM), "durationMinutes" and a "description" beginning with a verb that says concretely what the character does, true to their profile and to what comes before and after.',
      'Answer with JSON {"chunks": [{"start": "HH:MM", "durationMinutes": 60, "description": "…"}, …]}.',
    ],
    user: [
      `Character: ${inertJson(input.agentName)}`,
      `Date: ${input.date}`,
      dataSection("Profile", "profile", profileText(input.summary)),
      dataSection("The block to split", "block", input.item),
      dataSection("Just before and just after it", "neighbours", {
        before: input.before,
        after: input.after,
      }),
    ],
  });
}
