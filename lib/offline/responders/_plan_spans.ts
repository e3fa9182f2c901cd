/** @module Helpers of the offline planning responders: contiguous spans, count fitting, emoji, places. */
import { clockTime } from "../../../src/domain/mod.ts";
import { contentStems } from "../text.ts";

/** A piece of a day, in minutes since midnight, with its description. */
export interface Span {
  start: number;
  end: number;
  description: string;
}

/** Spans as plan steps: `HH:MM` start and a duration. */
export function asSteps(spans: readonly Span[]): {
  start: string;
  durationMinutes: number;
  description: string;
}[] {
  return spans.map((s) => ({
    start: clockTime(s.start),
    durationMinutes: s.end - s.start,
    description: s.description,
  }));
}

/**
 * Makes a contiguous list of spans hold between `min` and `max` pieces: while there are too many,
 * merges the two neighbours that are shortest together (the first one's description goes on),
 * so no merge makes one long block of the evening; halves the longest (on a 5-minute grid) while
 * there are too few.
 */
export function fitCount<T extends Span>(spans: readonly T[], min: number, max: number): T[] {
  const out = spans.map((s) => ({ ...s }));
  while (out.length > Math.max(1, max)) {
    let pair = 0;
    for (let i = 1; i + 1 < out.length; i++) {
      if (out[i + 1].end - out[i].start < out[pair + 1].end - out[pair].start) pair = i;
    }
    out[pair].end = out[pair + 1].end;
    out.splice(pair + 1, 1);
  }
  while (out.length < min) {
    let longest = -1;
    out.forEach((s, i) => {
      if (
        s.end - s.start >= 10 &&
        (longest === -1 || s.end - s.start > out[longest].end - out[longest].start)
      ) {
        longest = i;
      }
    });
    if (longest === -1) break;
    const s = out[longest];
    const mid = s.start + Math.max(5, Math.floor((s.end - s.start) / 10) * 5);
    out.splice(longest, 1, { ...s, end: mid }, { ...s, start: mid });
  }
  return out;
}

/** Splits `[start, end)` into pieces of `size` minutes; a last piece under 5 minutes joins the one before. */
export function slices(start: number, end: number, size: number): [number, number][] {
  const out: [number, number][] = [];
  for (let t = start; t < end; t += size) out.push([t, Math.min(end, t + size)]);
  const last = out.at(-1);
  if (out.length > 1 && last && last[1] - last[0] < 5) {
    out.pop();
    out[out.length - 1][1] = end;
  }
  return out;
}

// Checked in order: the first keyword found in the text picks the emoji.
const EMOJI: ReadonlyArray<readonly [RegExp, string]> = [
  [/\b(sleep|bed|nap)/, "😴"],
  [/\b(shower|bath|wash|get ready|dress|morning routine|wake)/, "🚿"],
  [/\b(coffee|espresso|latte|tea)/, "☕"],
  [/\b(cook|bake|kitchen|stove)/, "🍳"],
  [/\b(breakfast|lunch|dinner|eat|meal|snack)/, "🍽️"],
  [/\b(music|compos|piano|guitar|song|sing)/, "🎵"],
  [/\b(paint|draw|sketch|art)/, "🎨"],
  [/\b(read|book|study|library|class|lecture|research)/, "📚"],
  [/\b(write|writing|paper|essay|notes?)\b/, "✍️"],
  [/\b(shop|store|market|buy|groceries|errand)/, "🛒"],
  [/\b(walk|stroll|park|garden|jog|run)/, "🚶"],
  [/\b(talk|chat|meet|visit|party|friend|conversation|call)/, "💬"],
  [/\b(clean|tidy|sweep|dishes)/, "🧹"],
  [/\b(customer|serve|counter|shift|open the)/, "🧾"],
  [/\b(work|office|desk|job|task)/, "💼"],
  [/\b(relax|unwind|rest|break|hobby|pause)/, "🛋️"],
];

/** One emoji for an action, by keyword; "🙂" when nothing matches. */
export function emojiFor(text: string): string {
  const lower = text.toLowerCase();
  return EMOJI.find(([pattern]) => pattern.test(lower))?.[1] ?? "🙂";
}

/**
 * The 1-based number of the listed location that shares the most content words with `text`;
 * ties go to the earlier one. Null when none shares a word.
 */
export function bestOverlap(text: string, locations: readonly string[]): number | null {
  const wanted = new Set(contentStems(text));
  let best: number | null = null;
  let bestScore = 0;
  locations.forEach((location, i) => {
    const score = new Set(contentStems(location).filter((s) => wanted.has(s))).size;
    if (score > bestScore) {
      best = i + 1;
      bestScore = score;
    }
  });
  return best;
}
