/** @module Offline responder for the "object_state" prompt: a state that follows from the object and what is done with it. */
import type { ObjectStateInput, ObjectStateOutput } from "../../../src/domain/mod.ts";

/**
 * Rules, first match wins: the object (or any object when null) and what the action says →
 * the object's state.
 */
const RULES: readonly [RegExp | null, RegExp, string][] = [
  [null, /\b(?:sleep|sleeping|asleep|nap|napping)\b/i, "occupied"],
  [null, /\b(?:clean|cleaning|wipe|wiping|tidy|tidying|sweep|sweeping)\b/i, "being cleaned"],
  [/coffee|espresso/i, /./, "brewing coffee"],
  [/kettle/i, /./, "boiling water"],
  [/stove|oven|grill|hob/i, /./, "cooking"],
  [null, /\b(?:coffee|espresso|latte)\b/i, "brewing coffee"],
  [null, /\b(?:cook|cooking|fry|frying|bake|baking|boil|boiling)\b/i, "cooking"],
  [/sink|shower|bath/i, /\b(?:wash|washing|brush|brushing|clean|cleaning)\b/i, "running water"],
  [/shel(?:f|ves)|rack/i, /\b(?:restock|restocking|stock|stocking|shelving)\b/i, "being restocked"],
  [/counter|register|till/i, /\b(?:serve|serving|customer|order)/i, "busy with customers"],
  [/table/i, /\b(?:eat|eating|lunch|dinner|breakfast|meal)/i, "set for a meal"],
  [null, /\b(?:play|playing|practice|practicing|piano|guitar|music)\b/i, "being played"],
  [
    /desk|table|workbench/i,
    /\b(?:work|working|study|studying|notes|writing|task)/i,
    "covered in papers",
  ],
  [/sofa|couch|armchair|chair|bench/i, /./, "occupied"],
  [/book|shel(?:f|ves)/i, /\b(?:read|reading)\b/i, "a book taken out"],
];

/**
 * Answers from the input alone: the first rule that fits the object and the action gives the
 * state; otherwise the object is "in use". The same input always gives the same states.
 */
export function answerObjectState(input: unknown): ObjectStateOutput {
  const { items } = input as ObjectStateInput;
  return {
    states: items.map((item) =>
      RULES.find(([object, action]) =>
        (object === null || object.test(item.object)) && action.test(item.action)
      )?.[2] ?? "in use"
    ),
  };
}
