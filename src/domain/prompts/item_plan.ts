/**
 * @module Prompt: break one broad item of a day plan into hour-long chunks and each chunk into
 * 5–15-minute actions (with a place from a numbered list and an emoji), in one call (Generative
 * Agents §4.3).
 *
 * Cost decision: the paper decomposes in two levels, hour chunks then actions, and we asked for
 * each level separately: one `plan.hour` call per broad item and one `plan.actions` call per
 * waking hour, which resent the profile and the location list every hour and were most of a
 * town's calls. Both levels come from one call here, made when the item starts; the actions of
 * an hour within one broad item rarely depend on anything the hours before it change, and a
 * re-plan replaces whatever it cuts. Items of an hour or less still go to the actions prompt.
 * When the game registered actions (PUT …/actions), this same call says which action is one of
 * them, as the actions prompt does: no extra call.
 */
import { z } from "zod";
import { schemaMemo, spanKey } from "./_schema_memo.ts";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { inertJson, profileText } from "./data_block.ts";
import { clockMinutes } from "../time/mod.ts";
import { checkStepOrder, EmojiRendering, planSteps } from "./_plan_steps.ts";
import { type ActionLocation, locationSections } from "./actions.ts";
import {
  gameActionSection,
  type PromptGameAction,
  stepGameActionField,
  stepGameActionRules,
} from "./_respond_actions.ts";

/** Inputs of {@linkcode buildItemPlanPrompt}. */
export interface ItemPlanInput {
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
  /** At least one location, numbered from 1 in the prompt. */
  locations: ActionLocation[];
  /** Where the agent is now, or null when unknown. */
  currentLocation: string | null;
  /** The area of the current location, or null. */
  currentArea: string | null;
  /** The game's registered actions an action may be; absent or empty: none. */
  gameActions?: PromptGameAction[];
}

/**
 * One action of a chunk: the actions prompt's step, with a location number and emoji, and the
 * game action it is when the game registered actions.
 */
function actionFields(input: Pick<ItemPlanInput, "locations" | "gameActions">) {
  return {
    location: z.number().int().min(1).max(input.locations.length),
    emoji: EmojiRendering,
    ...stepGameActionField(input.gameActions),
  };
}

/**
 * Chunks in time order inside the item (at most 120 minutes each), each holding its actions in
 * time order inside the chunk (at most 60 minutes each).
 */
export function itemPlanSchema(
  input: Pick<ItemPlanInput, "item" | "locations" | "gameActions">,
): ReturnType<typeof buildItemPlanSchema> {
  return ITEM_PLANS(spanKey(input.item, input), () => buildItemPlanSchema(input));
}

const ITEM_PLANS = schemaMemo<ReturnType<typeof buildItemPlanSchema>>();

function buildItemPlanSchema(input: Pick<ItemPlanInput, "item" | "locations" | "gameActions">) {
  const bounds = { from: clockMinutes(input.item.start), until: clockMinutes(input.item.end) };
  return z.object({
    chunks: planSteps({
      actions: planSteps(actionFields(input), {
        bounds,
        maxMinutes: 60,
        count: { min: 1, max: 24 },
      }),
    }, { bounds, maxMinutes: 120, count: { min: 1, max: 24 } })
      // Each chunk's actions start inside that chunk.
      .superRefine((chunks, ctx) =>
        chunks.forEach((chunk, i) => {
          const from = clockMinutes(chunk.start);
          const until = Math.min(bounds.until, from + chunk.durationMinutes);
          checkStepOrder(chunk.actions, { from, until, at: [i, "actions"] }, ctx);
        })
      ),
  });
}
export type ItemPlanOutput = z.infer<ReturnType<typeof itemPlanSchema>>;

/**
 * Builds the item-plan prompt. What stays the same between an agent's calls comes first (the
 * rules, who the agent is, the places it knows) and what changes last (the item and the time),
 * so a provider that caches repeated prompt prefixes reuses most of it.
 * @see Generative Agents §4.3 "Decompose top-down: hour-long chunks, then 5–15 minute actions"; Park et al. 2023 §4.3.
 */
export function buildItemPlanPrompt(input: ItemPlanInput): Prompt<ItemPlanOutput> {
  const { start, end } = input.item;
  const hours = Math.max(1, Math.ceil((clockMinutes(end) - clockMinutes(start)) / 60));
  return chatPrompt({
    kind: "item_plan",
    tier: "main",
    input,
    schema: itemPlanSchema(input),
    // Per hour: a chunk (as the hour plan had) and up to twelve 5-minute actions (as the actions
    // prompt has).
    maxTokens: 60 + hours * (50 + 45 * 12),
    rules: [
      "Split one block of a character's day plan into steps of about 60 minutes (the first or last may be shorter), in time order, filling the block without overlaps; then split each step into actions of 5 to 15 minutes, in time order, filling the step.",
      'Each step has "start" (HH:MM), "durationMinutes" and a "description" beginning with a verb that says concretely what the character does, true to their profile and to what comes before and after.',
      "Each action is a phrase starting with a verb, at a listed location: prefer the character's current area when the action can be done there, else the block's planned place.",
      'Answer with JSON {"chunks": [{"start": "HH:MM", "durationMinutes": 60, "description": "…", "actions": [{"start": "HH:MM", "durationMinutes": 10, "description": "…", "location": 1, "emoji": "☕"}, …]}, …]}; "location" is a listed number, "emoji" 1 to 3 emoji showing the action.',
      ...stepGameActionRules(input.gameActions ?? [], { unit: "action" }),
    ],
    user: [
      `Character: ${inertJson(input.agentName)}`,
      dataSection("Profile", "profile", profileText(input.summary)),
      ...locationSections(input.locations),
      ...gameActionSection(input.gameActions ?? []),
      `Date: ${input.date}`,
      dataSection("Where the character is", "whereabouts", {
        currentLocation: input.currentLocation,
        currentArea: input.currentArea,
      }),
      dataSection("Just before and just after the block", "neighbours", {
        before: input.before,
        after: input.after,
      }),
      dataSection(`The block to split, from ${start} to ${end}`, "block", input.item),
    ],
  });
}
