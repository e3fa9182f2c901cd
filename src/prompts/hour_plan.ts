/** @module Prompt: break one broad item of a day plan into hour-long chunks that cover it (SPEC §5). */
import { z } from "zod";
import type { Prompt } from "../ports/language_model.ts";
import { DATA_RULE, dataBlock, promptTag } from "./_data_block.ts";
import { clockMinutes, ClockTime } from "../time/time_of_day.ts";
import { checkStepOrder } from "./_plan_steps.ts";

/** Inputs of {@linkcode buildHourPlanPrompt}. */
export interface HourPlanInput {
  agentName: string;
  /** The agent summary text. */
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
    chunks: z
      .array(z.object({
        start: ClockTime,
        durationMinutes: z.number().int().min(5).max(120),
        description: z.string().min(1).max(200),
      }))
      .min(1)
      .max(24)
      .superRefine((chunks, ctx) => checkStepOrder(chunks, bounds, ctx)),
  });
}
export type HourPlanOutput = z.infer<ReturnType<typeof hourPlanSchema>>;

/**
 * Builds the hour-plan prompt: one broad item ("work on the composition from 13:00 to 17:00")
 * becomes steps of about an hour that fill it ("13:00 brainstorm ideas", …). Only the item in
 * progress is decomposed, just in time, because plans change.
 * @see SPEC §5 "Decompose top-down: hour-long chunks"; Park et al. 2023 §4.3.
 */
export function buildHourPlanPrompt(input: HourPlanInput): Prompt<HourPlanOutput> {
  const { start, end } = input.item;
  return {
    kind: "hour_plan",
    tier: "main",
    input,
    schema: hourPlanSchema(input),
    maxTokens: 60 + 50 * Math.ceil((clockMinutes(end) - clockMinutes(start)) / 60),
    messages: [
      {
        role: "system",
        content: [
          promptTag("hour_plan"),
          "You split one block of a character's daily plan into steps of about an hour each.",
          `The steps run in time order from ${start} to ${end} and together fill the whole block without overlapping; each lasts about 60 minutes, though the first or the last may be shorter.`,
          'Each step has "start" (HH:MM, 24-hour clock), "durationMinutes" and a "description" that begins with a verb and says concretely what the character does in that stretch.',
          "Keep the steps true to the character's profile and consistent with what comes before and after the block.",
          'Answer with JSON {"chunks": [{"start": "HH:MM", "durationMinutes": 60, "description": "…"}, …]}.',
          DATA_RULE,
        ].join("\n"),
      },
      {
        role: "user",
        content: [
          `Character: ${JSON.stringify(input.agentName)}`,
          `Date: ${input.date}`,
          `Profile:\n${dataBlock("profile", input.summary)}`,
          `The block to split:\n${dataBlock("block", input.item)}`,
          `Just before and just after it:\n${
            dataBlock("neighbours", { before: input.before, after: input.after })
          }`,
        ].join("\n\n"),
      },
    ],
  };
}
