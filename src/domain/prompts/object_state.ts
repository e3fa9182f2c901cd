/**
 * @module Prompt: the new state of objects agents act on, for every such object of a tick in
 * one fast-model call (Generative Agents §4.3 "Acting on an object may change its state").
 *
 * Cost decision: the reference implementation asks once per action. The tick engine collects
 * every agent whose action changed at an object and asks for all of them at once, so a whole
 * town costs at most one call per tick.
 */
import { z } from "zod";
import { dataSection, listPrompt, listSchema, type Prompt } from "./prompt.ts";

/** One object an agent just started acting on. */
export interface ObjectStateItem {
  /** The object's name, e.g. "coffee machine". */
  object: string;
  /** Where it is, e.g. "Hobbs Cafe, cafe". */
  place: string;
  /** Its state now, "" when nothing is notable. */
  state: string;
  /** Who acts on it. */
  agentName: string;
  /** What they are doing there, e.g. "making coffee for the first customers". */
  action: string;
}

/** Inputs of {@linkcode buildObjectStatePrompt}. */
export interface ObjectStateInput {
  /** At least one object, in order. */
  items: ObjectStateItem[];
}

/** Longest state the model may write (the environment keeps up to 200 characters). */
export const MAX_STATE_LENGTH = 80;

const ANSWER = { key: "states", item: z.string().trim().max(MAX_STATE_LENGTH) } as const;

/** One state per item, in order; "" when nothing about the object is notable. */
export function objectStateSchema(count: number) {
  return listSchema(ANSWER, count);
}
export type ObjectStateOutput = z.infer<ReturnType<typeof objectStateSchema>>;

/**
 * Builds the object-state prompt (fast tier): for each object, its state while the agent does
 * what it does there, in a few words ("brewing coffee", "off", "in use").
 * @see Generative Agents §4.3 "Acting on an object may change its state (e.g. coffee machine: off → brewing
 * coffee)"; Park et al. 2023 §5.1.
 */
export function buildObjectStatePrompt(input: ObjectStateInput): Prompt<ObjectStateOutput> {
  return listPrompt({
    kind: "object_state",
    tier: "fast",
    input,
    answer: ANSWER,
    count: input.items.length,
    items: "strings, one per object, in the order given",
    tokens: { base: 16, each: 16 },
    rules: [
      "In a life simulation, characters act on objects around them. For each object, say what state it is in while the character does what they are doing there.",
      'Write each state as a short phrase of 1 to 6 words that completes "the <object> is …", e.g. "brewing coffee", "off", "in use", "being cleaned". Keep the current state when the action does not change the object; use "" when nothing about it is notable.',
    ],
    user: [dataSection("Objects, in order", "objects", input.items)],
  });
}
