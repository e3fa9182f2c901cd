/**
 * @module Prompt: break one hour chunk into 5–15-minute actions, each with a location picked
 * from a numbered list and an emoji rendering, in one call (Generative Agents §4.3).
 *
 * Cost decision: the reference implementation walks the environment tree with one call per
 * level (area, then sub-area, then object) and asks for the emoji in yet another call, for every
 * action. We ask for the location (by number, from a flat list of the agent's known locations)
 * and the emoji inside this single decomposition call: about one call per game hour instead of
 * four or five per action.
 */
import { z } from "zod";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { dataBlock, inertJson } from "./data_block.ts";
import { clockMinutes } from "../time/mod.ts";
import { EmojiRendering, planSteps } from "./_plan_steps.ts";
import { schemaMemo, spanKey } from "./_schema_memo.ts";
import { PATH_SEPARATOR } from "../world/mod.ts";
import {
  gameActionSection,
  type PromptGameAction,
  stepGameActionField,
  stepGameActionRules,
} from "./_respond_actions.ts";

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
  /** A short profile: the agent's identity line and its daily occupation (planning sends no more). */
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
  /** The game's registered actions a step may be; absent or empty: none. */
  gameActions?: PromptGameAction[];
}

/** Actions in time order inside the chunk, 5–60 minutes each, with a location number and emoji. */
export function actionsSchema(
  input: Pick<ActionsInput, "chunk" | "locations" | "gameActions">,
): ReturnType<typeof buildActionsSchema> {
  return ACTIONS(spanKey(input.chunk, input), () => buildActionsSchema(input));
}

const ACTIONS = schemaMemo<ReturnType<typeof buildActionsSchema>>();

function buildActionsSchema(input: Pick<ActionsInput, "chunk" | "locations" | "gameActions">) {
  const bounds = { from: clockMinutes(input.chunk.start), until: clockMinutes(input.chunk.end) };
  return z.object({
    actions: planSteps({
      location: z.number().int().min(1).max(input.locations.length),
      emoji: EmojiRendering,
      ...stepGameActionField(input.gameActions),
    }, { bounds, maxMinutes: 60, count: { min: 1, max: 24 } }),
  });
}
export type ActionsOutput = z.infer<ReturnType<typeof actionsSchema>>;

/**
 * The numbered locations as prompt lines, objects sharing one line per room ("Johnson
 * Park:lawn: 26. bench, 27. picnic table"), which keeps every choice on offer without repeating
 * the area and room names on every line: these lines were most of this prompt, the most frequent
 * planning call. They show no state and do not depend on where the agent is, so they are the same
 * on each of an agent's calls while it knows the same places, and a provider's prompt cache
 * reuses them ({@linkcode stateLines} says what changes).
 */
export function locationLines(locations: readonly ActionLocation[]): string[] {
  const lines: string[] = [];
  let room: string | null = null;
  locations.forEach((location, i) => {
    const parts = location.path.split(PATH_SEPARATOR);
    if (parts.length !== 3) {
      lines.push(`${i + 1}. ${location.path}`);
      room = null;
      return;
    }
    const here = parts.slice(0, 2).join(PATH_SEPARATOR);
    if (here === room) lines[lines.length - 1] += `, ${i + 1}. ${parts[2]}`;
    else lines.push(`${here}: ${i + 1}. ${parts[2]}`);
    room = here;
  });
  return lines;
}

/** The listed locations that are in a state now, by number ("2. coffee machine: off"). */
export function stateLines(locations: readonly ActionLocation[]): string[] {
  return locations.flatMap((location, i) =>
    location.state === ""
      ? []
      : [`${i + 1}. ${location.path.split(PATH_SEPARATOR).at(-1)}: ${location.state}`]
  );
}

/** The location sections of a planning prompt: the numbered list, then the states now. */
export function locationSections(locations: readonly ActionLocation[]): string[] {
  const states = stateLines(locations);
  return [
    dataSection(
      "Locations, by number (objects one room per line)",
      "locations",
      locationLines(locations),
    ),
    ...states.length === 0
      ? []
      : [dataSection("What is in a state now, by number", "states", states)],
  ];
}

/**
 * Builds the actions prompt for one hour chunk: an item of an hour or less (longer items get
 * their actions with their chunks, from the item-plan prompt).
 *
 * Tier: fast. This is the most frequent planning call (about one per short item, against one day
 * plan and one item plan per longer item), and the creative choices are already made by
 * the levels above: the chunk fixes what the hour is about, locations come from a numbered list,
 * and the schema plus the plan code enforce times. What remains is constrained splitting that a
 * small model does well, so the cost saving (BENCHMARKS.md) outweighs the small loss in nuance.
 * @see Generative Agents §4.3 "then 5–15 minute actions", "Location", "emoji rendering"; Park et al. 2023 §4.3, §5.1.
 */
export function buildActionsPrompt(input: ActionsInput): Prompt<ActionsOutput> {
  const { chunk } = input;
  const { start, end } = chunk;
  const minutes = clockMinutes(end) - clockMinutes(start);
  return chatPrompt({
    kind: "actions",
    tier: "fast",
    input,
    schema: actionsSchema(input),
    maxTokens: 60 + 45 * Math.max(1, Math.ceil(minutes / 5)),
    rules: [
      "Split the stretch of a character's plan given below into actions of 5 to 15 minutes, in time order, filling it without overlaps.",
      "Prefer locations in the character's current area when the action can be done there, else in the planned area.",
      'Answer with JSON {"actions": [{"start": "HH:MM", "durationMinutes": 10, "description": "a phrase starting with a verb", "location": 1, "emoji": "☕"}, …]}; "location" is a listed number, "emoji" 1 to 3 emoji showing the action.',
      ...stepGameActionRules(input.gameActions ?? []),
    ],
    // What stays the same between an agent's calls first (who, where it can go), what changes
    // last (where it is, the time, the stretch), so a provider's prompt cache reuses the prefix.
    user: [
      `Character: ${inertJson(input.agentName)}.`,
      dataSection("Profile", "profile", input.summary),
      ...locationSections(input.locations),
      ...gameActionSection(input.gameActions ?? []),
      dataSection("Where the character is, and the planned area", "whereabouts", {
        currentLocation: input.currentLocation,
        currentArea: input.currentArea,
        plannedArea: input.plannedArea,
      }),
      `Date: ${input.date}.`,
      `The stretch to split, from ${start} to ${end}${
        input.item === chunk.description ? "" : ", and the plan item it belongs to"
      }:\n${
        dataBlock(
          "stretch",
          input.item === chunk.description ? chunk : { ...chunk, item: input.item },
        )
      }`,
    ],
  });
}
