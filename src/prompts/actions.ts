/**
 * @module Prompt: break one hour chunk into 5–15-minute actions, each with a location picked
 * from a numbered list and an emoji rendering, in one call (SPEC §5).
 *
 * Cost decision: the reference implementation walks the environment tree with one call per
 * level (area, then sub-area, then object) and asks for the emoji in yet another call, for every
 * action. We ask for the location (by number, from a flat list of the agent's known locations)
 * and the emoji inside this single decomposition call: about one call per game hour instead of
 * four or five per action.
 */
import { z } from "zod";
import type { Prompt } from "../ports/language_model.ts";
import { DATA_RULE, dataBlock, promptTag } from "./_data_block.ts";
import { clockMinutes, ClockTime } from "../time/time_of_day.ts";
import { checkStepOrder, EmojiRendering } from "./_plan_steps.ts";

/** A location on offer, numbered by its position in the list (1-based). */
export interface ActionLocation {
  /** `Area:Sub-area:Object` (or shorter), or free text in a world without an environment. */
  path: string;
  /** The object's state, or "". */
  state: string;
}

/** Inputs of {@linkcode buildActionsPrompt}. */
export interface ActionsInput {
  agentName: string;
  /** The agent summary text. */
  summary: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** The broad day-plan item the chunk belongs to. */
  item: string;
  /** The hour chunk to decompose; `end` may be "24:00". */
  chunk: { start: string; end: string; description: string };
  /** At least one location. */
  locations: ActionLocation[];
  /** Where the agent is now, or null when unknown. */
  currentLocation: string | null;
  /** The area of the current location, or null. */
  currentArea: string | null;
  /** The area the day plan chose for the broad item. */
  plannedArea: string;
}

/** Actions in time order inside the chunk, 5–60 minutes each, with a location number and emoji. */
export function actionsSchema(input: Pick<ActionsInput, "chunk" | "locations">) {
  const bounds = { from: clockMinutes(input.chunk.start), until: clockMinutes(input.chunk.end) };
  return z.object({
    actions: z
      .array(z.object({
        start: ClockTime,
        durationMinutes: z.number().int().min(5).max(60),
        description: z.string().min(1).max(200),
        location: z.number().int().min(1).max(input.locations.length),
        emoji: EmojiRendering,
      }))
      .min(1)
      .max(24)
      .superRefine((actions, ctx) => checkStepOrder(actions, bounds, ctx)),
  });
}
export type ActionsOutput = z.infer<ReturnType<typeof actionsSchema>>;

/**
 * Builds the actions prompt for one hour chunk.
 *
 * Tier: fast. This is the most frequent planning call (about one per waking game hour, against
 * one day plan and one hour plan per broad item), and the creative choices are already made by
 * the levels above: the chunk fixes what the hour is about, locations come from a numbered list,
 * and the schema plus the plan code enforce times. What remains is constrained splitting that a
 * small model does well, so the cost saving (SPEC §9) outweighs the small loss in nuance.
 * @see SPEC §5 "then 5–15 minute actions", "Location", "emoji rendering"; Park et al. 2023 §4.3, §5.1.
 */
export function buildActionsPrompt(input: ActionsInput): Prompt<ActionsOutput> {
  const { start, end } = input.chunk;
  const minutes = clockMinutes(end) - clockMinutes(start);
  return {
    kind: "actions",
    tier: "fast",
    input,
    schema: actionsSchema(input),
    maxTokens: 60 + 45 * Math.max(1, Math.ceil(minutes / 5)),
    messages: [
      {
        role: "system",
        content: [
          promptTag("actions"),
          "You split one stretch of a character's plan into the small actions they take, each lasting 5 to 15 minutes.",
          `The actions run in time order from ${start} to ${end} and together fill the whole stretch without overlapping.`,
          'Each action has "start" (HH:MM, 24-hour clock), "durationMinutes", a "description" that begins with a verb, "location": the number of the listed location where it happens, and "emoji": one to three emoji that show the action at a glance (such as "☕" for making coffee).',
          "Choose a location in the character's current area whenever the action can be done there; otherwise one in the area planned for this part of the day, or another listed location that fits.",
          'Answer with JSON {"actions": [{"start": "HH:MM", "durationMinutes": 10, "description": "…", "location": 1, "emoji": "…"}, …]}.',
          DATA_RULE,
        ].join("\n"),
      },
      {
        role: "user",
        content: [
          `Character: ${JSON.stringify(input.agentName)}`,
          `Date: ${input.date}`,
          `Profile:\n${dataBlock("profile", input.summary)}`,
          `Part of the day plan:\n${dataBlock("item", input.item)}`,
          `The stretch to split:\n${dataBlock("stretch", input.chunk)}`,
          `Where the character is and what was planned:\n${
            dataBlock("whereabouts", {
              currentLocation: input.currentLocation,
              currentArea: input.currentArea,
              plannedArea: input.plannedArea,
            })
          }`,
          `Locations, by number:\n${
            dataBlock(
              "locations",
              input.locations.map((l, i) =>
                l.state === "" ? `${i + 1}. ${l.path}` : `${i + 1}. ${l.path} (${l.state})`
              ),
            )
          }`,
        ].join("\n\n"),
      },
    ],
  };
}
