/** @module Offline responder for the "object_state" prompt: a state from keywords of the action. */
import type { ObjectStateInput, ObjectStateOutput } from "../../../src/prompts/object_state.ts";

/** Keyword rules, first match wins: what the action says → the object's state. */
const RULES: readonly [RegExp, string][] = [
  [/\b(?:sleep|sleeping|asleep|nap|napping)\b/i, "occupied"],
  [/\b(?:coffee|espresso|latte)\b/i, "brewing coffee"],
  [/\b(?:cook|cooking|fry|frying|bake|baking|boil|boiling|breakfast|lunch|dinner)\b/i, "cooking"],
  [/\b(?:clean|cleaning|wipe|wiping|tidy|tidying|wash|washing)\b/i, "being cleaned"],
  [/\b(?:play|playing|practice|practicing|piano|guitar|music)\b/i, "being played"],
];

/**
 * Answers from the input alone: the first keyword rule the action matches gives the state;
 * otherwise the object is "in use". The same input always gives the same states.
 */
export function answerObjectState(input: unknown): ObjectStateOutput {
  const { items } = input as ObjectStateInput;
  return {
    states: items.map((item) =>
      RULES.find(([pattern]) => pattern.test(item.action))?.[1] ?? "in use"
    ),
  };
}
