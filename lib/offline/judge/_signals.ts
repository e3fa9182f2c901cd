/** @module Private to the offline judge: the text signals its rules read (overlap, uncertainty, naturalness). */
import { contentStems } from "../text.ts";

/** The set of a text's content stems. */
export function stemSet(text: string): Set<string> {
  return new Set(contentStems(text));
}

/** Share of `reference`'s content stems found in `text` (1 when the reference has none). */
export function coverage(text: string, reference: string): number {
  const ref = stemSet(reference);
  if (ref.size === 0) return 1;
  const have = stemSet(text);
  let hit = 0;
  for (const s of ref) if (have.has(s)) hit++;
  return hit / ref.size;
}

/** Jaccard similarity of two texts' content stems (1 when both have none). */
export function similarity(a: string, b: string): number {
  const x = stemSet(a);
  const y = stemSet(b);
  if (x.size === 0 && y.size === 0) return 1;
  let both = 0;
  for (const s of x) if (y.has(s)) both++;
  return both / (x.size + y.size - both);
}

const UNCERTAIN =
  /\b(?:not sure|no idea|don't know|do not know|can't know|cannot know|can't say|couldn't say|wouldn't know|can't tell|only (?:be )?a guess|i guess|hard to say|i'm not certain|no way (?:of|to) know|haven't heard|never heard|beyond me|can't be sure)\b/i;

/** Whether a text expresses uncertainty or declines to claim knowledge. */
export function uncertain(text: string): boolean {
  return UNCERTAIN.test(text.replace(/[’‘]/g, "'"));
}

/**
 * A 0–1 naturalness estimate of an utterance: a speakable length, first-person voice,
 * contractions, plain sentences without lists or markup, and a finished last sentence.
 */
export function naturalness(text: string): number {
  const t = text.replace(/^[^:]{1,60}:\s/, "").trim();
  const words = t.split(/\s+/).filter((w) => w !== "").length;
  const sentences = t.split(/[.!?]+(?:\s|$)/).filter((s) => s.trim() !== "").length;
  const checks = [
    words >= 5 && words <= 80,
    /\b(?:I|I'm|I've|my|me|we|our)\b/.test(t),
    /\b\w+'(?:m|s|re|ve|ll|d|t)\b/i.test(t.replace(/[’]/g, "'")),
    !/^\s*(?:[-*•]|\d+\.)\s/m.test(t) && !/[#`{}<>]/.test(t),
    sentences >= 1 && sentences <= 5,
    /[.!?…]["')]?$/.test(t),
  ];
  return checks.filter(Boolean).length / checks.length;
}

/** 1–10 from a 0–1 value. */
export function toScale(value: number): number {
  return Math.max(1, Math.min(10, Math.round(1 + 9 * Math.max(0, Math.min(1, value)))));
}
