/**
 * @module Offline responder for the "importance" prompt: a lexicon score per observation, and,
 * when earlier memories are shown, the one each updates.
 */
import { rateImportance } from "../importance_lexicon.ts";
import { rateValence } from "../valence_lexicon.ts";
import { clause, updatedMemory } from "./_supersession.ts";

/** The answer of the built-in "importance" responder: one 1–10 score per observation. */
export interface ImportanceAnswer {
  scores: number[];
  /** With earlier memories: the one each observation updates (from 1), 0 for none. */
  supersedes?: number[];
  /** How each observation felt, -5 to 5, from {@linkcode rateValence}. */
  valence: number[];
}

/**
 * The built-in "importance" responder: `{ observations: string[], earlier?: string[] }` →
 * `{ scores: number[], supersedes?: number[], valence: number[] }`, each score from {@linkcode rateImportance}, each
 * update from {@linkcode updatedMemory}.
 *
 * @throws {TypeError} When the input has no `observations` array of strings.
 */
export function answerImportance(input: unknown): ImportanceAnswer {
  const observations = (input as { observations?: unknown } | null)?.observations;
  if (!Array.isArray(observations) || !observations.every((o) => typeof o === "string")) {
    throw new TypeError('Cannot rate importance: the input has no "observations" list of strings');
  }
  const scores = observations.map(rateImportance);
  const valence = observations.map(rateValence);
  const earlier = (input as { earlier?: unknown }).earlier;
  if (!Array.isArray(earlier) || earlier.length === 0) return { scores, valence };
  const clauses = earlier.map((m) => clause(String(m)));
  return { scores, supersedes: observations.map((o) => updatedMemory(o, clauses)), valence };
}
