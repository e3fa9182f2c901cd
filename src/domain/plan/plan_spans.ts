/** @module Fits plan steps a model proposed into contiguous spans of minutes within a day (Generative Agents §4.3). */

/** The shortest piece at any plan level, in minutes (the prompts' schemas use the same bound). */
export const MIN_MINUTES = 5;

/** A step as proposed: a start minute, a duration and what it carries. */
export interface Draft<T> {
  start: number;
  minutes: number;
  value: T;
}

/** A span of minutes `[start, end)` and what it carries. */
export interface Span<T> {
  start: number;
  end: number;
  value: T;
}

/**
 * Turns proposed steps into contiguous spans from `lo`: sorted by start, clamped to
 * [`lo`, `hi`), each ending where the next starts (filling gaps, clipping overlaps); the last
 * ends at `hi` with `cover`, else after its duration. A span under 5 minutes joins its
 * neighbour; one over `maxMinutes` is cut into even pieces.
 */
export function fitSpans<T>(
  drafts: readonly Draft<T>[],
  options: { lo: number; hi: number; cover: boolean; maxMinutes: number },
): Span<T>[] {
  const { lo, hi } = options;
  const sorted = drafts
    .map((d) => ({ ...d, start: Math.max(lo, d.start) }))
    .filter((d) => d.start < hi)
    .sort((a, b) => a.start - b.start);
  const spans = sorted.map((d, i): Span<T> => ({
    start: i === 0 ? lo : d.start,
    end: i + 1 < sorted.length
      ? sorted[i + 1].start
      : options.cover
      ? hi
      : Math.min(hi, Math.max(d.start + d.minutes, (i === 0 ? lo : d.start) + MIN_MINUTES)),
    value: d.value,
  }));
  const merged: Span<T>[] = [];
  for (const span of spans) {
    const last = merged.at(-1);
    if (last && span.end - span.start < MIN_MINUTES) last.end = span.end;
    else merged.push({ ...span });
  }
  if (merged.length > 1 && merged[0].end - merged[0].start < MIN_MINUTES) {
    merged[1].start = merged[0].start;
    merged.shift();
  }
  return merged.flatMap((s) => splitEven(s, options.maxMinutes));
}

/** A span cut into the fewest even pieces of at most `max` minutes, each with its value. */
export function splitEven<T>(span: Span<T>, max: number): Span<T>[] {
  const { start: lo, end: hi, value } = span;
  const pieces = Math.max(1, Math.ceil((hi - lo) / max));
  return Array.from({ length: pieces }, (_, k) => ({
    start: lo + Math.round(((hi - lo) * k) / pieces),
    end: lo + Math.round(((hi - lo) * (k + 1)) / pieces),
    value,
  }));
}
