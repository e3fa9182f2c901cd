/**
 * @module An agent's mood: valence and arousal moved by important memories and drifting back to
 * the persona's baseline over game hours (issue 22). No model call: the valence of a memory comes
 * with its importance rating.
 */
import { z } from "zod";
import { hoursBetween } from "../time/mod.ts";
import type { SocialEvent } from "./relationship.ts";

/** Memories below this importance leave the mood as it is (routine does not move feelings). */
export const MOOD_MIN_IMPORTANCE = 4;
/** Game hours for the mood to drift half-way back to its baseline. */
export const MOOD_HALF_LIFE_HOURS = 6;
/** How many memory ids the mood keeps as evidence (the newest). */
const MOOD_EVIDENCE = 5;

/** The mood as stored: where it was at `at`, before drifting since. */
export const StoredMood = z.object({
  valence: z.number().min(-1).max(1),
  arousal: z.number().min(0).max(1),
  at: z.string(),
  /** When the current label began. */
  since: z.string(),
  label: z.string(),
  evidence: z.array(z.string()),
});
export type StoredMood = z.infer<typeof StoredMood>;

/** The mood as the agent view shows it. */
export interface MoodView {
  valence: number;
  arousal: number;
  label: string;
  since: string;
  evidence: string[];
}

/** Where a persona's mood rests: valence from its temperament words, arousal calm-ish. */
export interface MoodBaseline {
  valence: number;
  arousal: number;
}

const BRIGHT =
  /\b(cheerful|friendly|kind|warm|optimistic|happy|joyful|outgoing|generous|gentle|playful|caring|sunny|upbeat|enthusiastic)\b/i;
const DARK =
  /\b(grumpy|gloomy|bitter|cynical|pessimistic|anxious|moody|melancholic|sad|hostile|suspicious|irritable|cold|sullen)\b/i;
const LIVELY = /\b(energetic|excitable|passionate|restless|lively|nervous|anxious|enthusiastic)\b/i;

/** The baseline of an agent whose traits and description read so. */
export function moodBaseline(
  persona: { traits: readonly string[]; description: string },
): MoodBaseline {
  const text = `${persona.traits.join(" ")} ${persona.description}`;
  const valence = (BRIGHT.test(text) ? 0.25 : 0) - (DARK.test(text) ? 0.25 : 0);
  return { valence: valence + 0.05, arousal: LIVELY.test(text) ? 0.45 : 0.3 };
}

/** A word for a point of the valence–arousal plane. */
export function moodLabel(valence: number, arousal: number): string {
  if (valence >= 0.35) return arousal >= 0.55 ? "excited" : "content";
  if (valence <= -0.35) return arousal >= 0.55 ? "upset" : "sad";
  if (arousal >= 0.6) return "tense";
  return "calm";
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** The mood at `at`: drifted toward the baseline for the game hours since it was set. */
export function moodAt(mood: StoredMood | null, context: { baseline: MoodBaseline; at: string }) {
  const { baseline, at } = context;
  if (mood === null) {
    return {
      valence: round(baseline.valence),
      arousal: round(baseline.arousal),
      label: moodLabel(baseline.valence, baseline.arousal),
      since: at,
      evidence: [],
    } satisfies MoodView;
  }
  const keep = Math.pow(0.5, Math.max(0, hoursBetween(mood.at, at)) / MOOD_HALF_LIFE_HOURS);
  const valence = round(baseline.valence + (mood.valence - baseline.valence) * keep);
  const arousal = round(baseline.arousal + (mood.arousal - baseline.arousal) * keep);
  const label = moodLabel(valence, arousal);
  return {
    valence,
    arousal,
    label,
    since: label === mood.label ? mood.since : at,
    evidence: label === mood.label ? mood.evidence : [],
  } satisfies MoodView;
}

/**
 * The mood after a memory: an important one (importance ≥ {@linkcode MOOD_MIN_IMPORTANCE}, not a seed)
 * pulls valence toward its own and stirs arousal by its importance; others leave it unchanged
 * (null: nothing to write).
 */
export function moodAfter(
  mood: StoredMood | null,
  event: Pick<SocialEvent, "memoryId" | "kind" | "importance" | "valence" | "at">,
  baseline: MoodBaseline,
): StoredMood | null {
  // Seeds are the persona's past, already part of its baseline.
  if (event.importance < MOOD_MIN_IMPORTANCE || event.kind === "seed") return null;
  // Unrated (a model that left valence out): no guess either way.
  if (event.valence === null) return null;
  const now = moodAt(mood, { baseline, at: event.at });
  const weight = 0.2 + 0.5 * (event.importance - MOOD_MIN_IMPORTANCE) / (10 - MOOD_MIN_IMPORTANCE);
  const v = event.valence;
  const valence = round(Math.max(-1, Math.min(1, now.valence + weight * (v - now.valence))));
  const stir = Math.abs(v) * 0.5 + event.importance / 20;
  const arousal = round(Math.max(0, Math.min(1, now.arousal + weight * (stir - now.arousal))));
  const label = moodLabel(valence, arousal);
  return {
    valence,
    arousal,
    at: event.at,
    since: label === now.label ? now.since : event.at,
    label,
    evidence: [...(label === now.label ? now.evidence : []), event.memoryId].slice(-MOOD_EVIDENCE),
  };
}
