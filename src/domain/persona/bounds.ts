/** @module Bound: spot questions that reach past what the character can know (Memory-Driven Role-Playing §3.3, Magic-If stage three). */
import type { GameTime } from "../time/mod.ts";

const YEAR = /\b(1[5-9]\d\d|2\d\d\d)\b/g;
const FAR_FUTURE =
  /\b(?:next (?:year|decade|century)|in (?:\d+|a few|several|ten|twenty|fifty|a hundred) (?:years|decades)|years from now|decades from now|the (?:distant |far )?future)\b/i;
const PREDICTION = /\b(?:who will win|what will happen|how will (?:it|this|that|the \w+) end)\b/i;

/**
 * Hints, in plain words, that a message asks about something the character cannot know yet: a
 * year after the present one, the distant future, or a prediction. Near plans ("tomorrow",
 * "tonight") are not flagged: the character's plans answer those. The model decides whether to
 * answer with uncertainty; these hints only make the boundary explicit. Out-of-world questions
 * depend on the world and are left to the model.
 */
export function boundaryHints(message: string, now: GameTime): string[] {
  const hints: string[] = [];
  const year = Number(now.slice(0, 4));
  const later = [...message.matchAll(YEAR)].map((m) => Number(m[1])).filter((y) => y > year);
  if (later.length > 0) {
    hints.push(
      `The message mentions the year ${Math.min(...later)}, after the present year ${year}.`,
    );
  }
  if (FAR_FUTURE.test(message)) hints.push("The message asks about the future beyond the present.");
  if (PREDICTION.test(message)) hints.push("The message asks for a prediction of an outcome.");
  return hints;
}
