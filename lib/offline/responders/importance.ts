/** @module Offline responder for the "importance" prompt: a lexicon score per observation. */
import { rateImportance } from "../importance_lexicon.ts";

/** The answer of the built-in "importance" responder: one 1–10 score per observation. */
export interface ImportanceAnswer {
  scores: number[];
}

/**
 * The built-in "importance" responder: `{ observations: string[] }` → `{ scores: number[] }`,
 * each score from {@linkcode rateImportance}.
 *
 * @throws {TypeError} When the input has no `observations` array of strings.
 */
export function answerImportance(input: unknown): ImportanceAnswer {
  const observations = (input as { observations?: unknown } | null)?.observations;
  if (!Array.isArray(observations) || !observations.every((o) => typeof o === "string")) {
    throw new TypeError('Cannot rate importance: the input has no "observations" list of strings');
  }
  return { scores: observations.map(rateImportance) };
}
