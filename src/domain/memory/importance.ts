/** @module Scores the importance of new memories in one batched fast-model call (Generative Agents §4.1). */
import { ModelUnavailableError } from "../errors.ts";
import { type Usage } from "../usage.ts";

/** Texts that describe nothing happening; they score 1 with no model call. */
const IDLE =
  /^(?:\S+(?:\s\S+){0,3}\s+is\s+)?(?:idle|doing nothing|asleep|sleeping)\.?$|^(?:nothing|idle|none)\.?$/i;
/** Whether an observation is an idle/no-op event (scored 1 without a call). */
export function isIdle(text: string): boolean {
  return IDLE.test(text.trim());
}
/** Scores per text (null where the model failed) and what the call cost. */
export interface ImportanceScores {
  scores: (number | null)[];
  /**
   * With earlier memories asked about: per text, the number (from 1) of the earlier memory it
   * updates, 0 for none (and for texts not sent to the model).
   */
  supersedes?: number[];
  /** Per text, how it felt from -1 to 1 (issue 22); null where not rated (idle, or not answered). */
  valence?: (number | null)[];
  usage: Usage;
  /** Set when the model failed after its retries; those texts are stored as pending. */
  failure?: ModelUnavailableError;
}
