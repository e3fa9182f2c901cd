/** @module Offline responder for the "object_state" prompt: a state that fits the object and what is done with it. */
import type { ObjectStateInput, ObjectStateOutput } from "../../../src/domain/mod.ts";

const INSTRUMENT =
  /\b(?:piano|keyboard|guitar|violin|viola|cello|drums?|organ|harp|flute|trumpet|saxophone|instrument)\b/i;
const SEAT =
  /\b(?:sofa|couch|armchair|recliner|chair|chairs|bench|seats?|window seat|deck chairs|stool)\b/i;
const TABLE = /\b(?:desk|table|tables|workbench|bench|lectern|podium)\b/i;

/**
 * Rules, first match wins: what the object is (any object when null) and what the action says
 * → the object's state. Every state is one the object can be in: a desk is never "being played"
 * and a sofa never "brewing coffee".
 */
const RULES: readonly [RegExp | null, RegExp, string][] = [
  [/\b(?:bed|hammock|cot)\b/i, /./, "occupied"],
  [null, /\b(?:clean|cleaning|wipe|wiping|tidy|tidying|sweep|sweeping)\b/i, "being cleaned"],
  [/coffee|espresso/i, /./, "brewing coffee"],
  [/kettle/i, /./, "boiling water"],
  [
    /\b(?:stove|oven|grill|hob|fryer|microwave)\b/i,
    /\b(?:bak\w*|bread|pastr\w*|croissant)/i,
    "baking",
  ],
  [/\b(?:stove|oven|grill|hob|fryer|microwave)\b/i, /./, "cooking"],
  [/\b(?:mixer|proofing)\b/i, /./, "full of dough"],
  [/\b(?:beer taps|taps)\b/i, /./, "pouring"],
  [
    /sink|shower|bath/i,
    /\b(?:wash|washing|brush|brushing|clean|cleaning|rins\w*|develop\w*)\b/i,
    "running water",
  ],
  [
    /shel(?:f|ves)|rack|case|stand|aisle/i,
    /\b(?:restock|restocking|stock|stocking|shelving|arrang\w*)\b/i,
    "being restocked",
  ],
  [/shel(?:f|ves)/i, /\b(?:read|reading|book|books|brows\w*)\b/i, "a book taken out"],
  [
    /counter|register|till|bar\b/i,
    /\b(?:serv\w*|customer\w*|order\w*|sell\w*|drink\w*|coffee|pour\w*)/i,
    "busy with customers",
  ],
  [INSTRUMENT, /./, "being played"],
  [/\b(?:record player|radio)\b/i, /./, "playing music"],
  [/\b(?:television|tv|projector)\b/i, /./, "on"],
  [/\b(?:computer|terminal|typewriter|oscilloscope|microscope)\b/i, /./, "in use"],
  [/\bchess\b/i, /./, "a game in progress"],
  [/\beasel\b/i, /./, "holding a painting in progress"],
  [/\b(?:whiteboard|chalkboard|blackboard)\b/i, /./, "covered in writing"],
  [/\b(?:garden|beds|patch|herbs|plants|greenhouse|compost)\b/i, /./, "being tended"],
  [TABLE, /\b(?:eat|eating|lunch|dinner|breakfast|meal|snack|coffee|tea)/i, "set for a meal"],
  [
    TABLE,
    /\b(?:work|working|study|studying|notes|writ\w*|task|read\w*|grad\w*|paper|papers|plan\w*)/i,
    "covered in papers",
  ],
  [SEAT, /./, "occupied"],
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
