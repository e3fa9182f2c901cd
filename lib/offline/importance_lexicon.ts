/** @module Offline poignancy rating: scores an observation 1–10 from the words it uses (Generative Agents §4.1). */
import { stem, words } from "./text.ts";

// Score bands follow the paper's anchors: 1 is mundane (brushing teeth), 10 extremely poignant
// (a break-up). Unknown words leave an observation at the "ordinary" score.
const ORDINARY = 3;
const BANDS: ReadonlyArray<readonly [number, string]> = [
  [
    1,
    "idle asleep sleep sleeping nap napping snooze yawn yawning brush brushing teeth shower showering sit sitting stand standing wait waiting rest resting lie lying blink nothing",
  ],
  [
    2,
    "eat eating ate breakfast lunch dinner snack cook cooking wash washing clean cleaning dress dressing walk walking read reading commute commuting type typing drink drinking coffee tea water shop shopping groceries desk work working write writing study studying exercise jog jogging bed toilet dishes laundry tidy sweep brew brewing stove fridge garden gardening serve serving customer customers counter restock restocking shelf shelves wipe wiping seat order ordering notes material review reviewing stretch stretching errand errands routine bath",
  ],
  [
    4,
    "talk talking chat chatting conversation greet greeting meet meeting visit visiting call phone message ask tell discuss share help joke laugh news learn idea plan project paint music sing compliment advice friend friends volunteer volunteers",
  ],
  [
    5,
    "gift exam interview deadline job lose worried upset angry concert secret rumor rumour moving",
  ],
  [
    6,
    "invite invitation birthday date crush festival hire argue argument cry crying sick ill vote campaign mayor storm burn win won",
  ],
  [
    7,
    "party celebration celebrate promotion promote quit hospital candidate kiss love confess baby graduate graduation award steal stole police",
  ],
  [
    8,
    "fight fought accident injured injury fire flood election elect propose proposal engaged engagement born birth betray cheat rob robbery crime stolen",
  ],
  [
    9,
    "attack wedding married marry marriage divorce pregnant funeral cancer disaster war earthquake arrested breakup",
  ],
  [10, "died dies die dead death kill killed murder murdered suicide"],
];
/** Roles a fact about someone's occupation names ("is a retired carpenter", "is the town clerk"). */
const ROLES =
  "student|professor|baker|barista|pharmacist|librarian|clerk|owner|keeper|carpenter|nurse|teacher|schoolteacher|painter|photographer|poet|handyman|technician|postman|manager|journalist|doctor|lawyer|farmer|chef|cook|waiter|waitress|bartender|mechanic|writer|musician|composer|assistant|scientist|engineer|shopkeeper|innkeeper|librarian|priest|soldier|sailor|fisherman|blacksmith|merchant|guard";
const PHRASES: ReadonlyArray<readonly [RegExp, number]> = [
  // Who someone is (their work, home and family) is not the routine of a day: a seed such as
  // "Lucia owns Marigold Cafe" or "Jun is a biology student" is notable, while "Lucia is working
  // at the counter" stays routine.
  [new RegExp(`\\b(?:is|was) (?:a|an|the) (?:[\\w-]+ ){0,3}(?:${ROLES})s?\\b`), 5],
  [
    /\b(?:works|worked) (?:as|at|for|with)\b|\b(?:owns|owned|manages|employs)\b|\bto become an? \w/,
    5,
  ],
  [
    /\blives? (?:in|at|with|alone|next door|across)\b|\bshares? (?:the|a|an) (?:dorm|house|flat|apartment|home|loft)/,
    5,
  ],
  [
    /\b(?:his|her|their|my) (?:wife|husband|son|daughter|father|mother|parents|brother|sister|family)\b/,
    5,
  ],
  [/\b(?:closest|best|good|old) friends?\b|\bfriends (?:with|since|for)\b/, 5],
  [/\b(?:broke|break|breaking|broken|split|splitting) up\b/, 9],
  [/\bpass(?:ed|es)? away\b/, 10],
  [/\b(?:fell|fall|falling) in love\b/, 8],
  [/\bgot (?:the )?job\b/, 7],
];

const LEXICON: ReadonlyMap<string, number> = (() => {
  const map = new Map<string, number>();
  for (const [score, list] of BANDS) {
    for (const word of list.split(/\s+/)) {
      map.set(word, score);
      map.set(stem(word), score);
    }
  }
  return map;
})();

/**
 * Rates how poignant an observation is, 1 (mundane: "brushing teeth", "idle") to 10 (a death,
 * a break-up), from a fixed lexicon: the strongest matching word wins, a second strong word
 * (6 or more) adds one, and an observation with no known word is ordinary (3). Deterministic.
 *
 * @example
 * ```ts
 * import { rateImportance } from "./importance_lexicon.ts";
 * rateImportance("Klaus is brushing his teeth"); // 1
 * rateImportance("Isabella invited Klaus to her Valentine's Day party"); // 8
 * ```
 */
export function rateImportance(observation: string): number {
  const hits: number[] = [];
  const lower = observation.toLowerCase();
  for (const [pattern, score] of PHRASES) if (pattern.test(lower)) hits.push(score);
  for (const word of words(observation)) {
    const score = LEXICON.get(word) ?? LEXICON.get(stem(word));
    if (score !== undefined) hits.push(score);
  }
  if (hits.length === 0) return ORDINARY;
  hits.sort((a, b) => b - a);
  const bonus = hits.length > 1 && hits[1] >= 6 ? 1 : 0;
  return Math.min(10, hits[0] + bonus);
}
