/** @module The retrieval score: recency, importance and relevance, min–max normalised (Generative Agents §4.1). */
import type { MemoryRecord } from "./memory_record.ts";
import { gameMinutesFast } from "../time/mod.ts";
import { type Weights } from "../world/mod.ts";
import { TopK } from "./_top_k.ts";

/** A candidate's raw inputs. */
export interface RawComponents {
  hoursSinceAccess: number;
  importance: number;
  cosine: number;
}

/** What ranking reads of a memory besides its columns: ties go to the newer, then the smaller id. */
export type RankedRow = Pick<MemoryRecord, "id" | "createdAt">;

/** A scored memory (or, for {@linkcode rankColumns} over slim rows, a scored row). */
export interface Scored<R extends RankedRow = MemoryRecord> {
  memory: R;
  score: number;
  components: { recency: number; importance: number; relevance: number };
  raw: RawComponents;
}

/**
 * The value every candidate gets for a component that is equal across all of them (or when
 * there is one candidate). The reference code uses the middle of the range; any constant leaves
 * the ranking to the other components and, unlike 0/0, is never NaN.
 */
export const CONSTANT_COMPONENT = 0.5;

/** Options for {@linkcode rankCandidates} and {@linkcode rankColumns}. */
export interface RankOptions {
  /** Game time of the query, for recency. */
  at: string;
  weights: Weights;
  /** Recency decay per game hour. @default 0.995 */
  decay?: number;
  /** Return only the best `limit`. @default all */
  limit?: number;
  /**
   * Normalise over these ranges too (each widened to the candidates' own): the ranges of all
   * the memories when only some are candidates, so that candidates score as exactly as if
   * every memory were ranked. @default the candidates' ranges
   */
  bounds?: ComponentBounds;
}

/** The [lowest, highest] raw value of each component, for {@linkcode RankOptions.bounds}. */
export interface ComponentBounds {
  accessedMinutes: readonly [number, number];
  importance: readonly [number, number];
  /** Absent: the candidates' own range. */
  cosine?: readonly [number, number];
}

/**
 * Candidates as aligned columns: row `i` of every column describes `records[i]`. This is what
 * an exhaustive scan yields (the `Storage.scanMemories` port), without per-memory objects or
 * time strings to parse.
 */
export interface CandidateColumns<R extends RankedRow = MemoryRecord> {
  /** The memories, or just their ids and creation times: ranking reads nothing else. */
  records: readonly R[];
  /** The cosine of each memory's vector with the query (non-finite values count as 0). */
  cosines: ArrayLike<number>;
  /** `gameMinutes(records[i].lastAccessedAt)`. */
  accessedMinutes: ArrayLike<number>;
  /** `records[i].importance`. */
  importance: ArrayLike<number>;
}

/**
 * Scores candidates and returns them best first (ties: newer, then id). recency =
 * decay^(game hours since last access, never negative), importance = 1–10, relevance = the
 * cosine in `cosines[i]`; each is min–max normalised over all candidates and the score is
 * Σ weight·component. Linear in the candidates; only the best `limit` are sorted. The same as
 * {@linkcode rankColumns} on columns built from the records.
 */
export function rankCandidates(
  memories: readonly MemoryRecord[],
  cosines: ArrayLike<number>,
  options: RankOptions,
): Scored[] {
  const n = memories.length;
  const accessedMinutes = new Float64Array(n);
  const importance = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    accessedMinutes[i] = gameMinutesFast(memories[i].lastAccessedAt);
    importance[i] = memories[i].importance;
  }
  return rankColumns({ records: memories, cosines, accessedMinutes, importance }, options);
}

/**
 * {@linkcode rankCandidates} over aligned columns: the scoring core, with the same results to
 * the bit. No strings are parsed, and recency (`Math.exp`, the costly part) is computed only for
 * candidates that could make the top `limit`:
 *
 * 1. One pass takes each candidate's recency exponent `x = hours · ln(decay)` and the bounds of
 *    the exponents, importances and cosines.
 * 2. The recency bounds are exact: `Math.exp` errs by less than one ulp, so only exponents
 *    within {@linkcode EXP_WINDOW} of the extreme ones can give the extreme values; those are
 *    evaluated. (Near the subnormal range that argument fails, and every candidate is.)
 * 3. A bounded heap keeps the best `limit`. A candidate whose score bound is below the heap's
 *    worst score cannot enter and is skipped; others get their exact score. The bound takes
 *    recency as `exp` at the exponent rounded up to a multiple of 1/{@linkcode EXP_BUCKETS}
 *    (one `exp` per bucket, cached), and is padded by {@linkcode PRUNE_SLACK}, far more than
 *    its rounding error, so it is never below the exact score.
 *
 * Ties are broken the same way whatever the order of the columns.
 */
export function rankColumns<R extends RankedRow>(
  columns: CandidateColumns<R>,
  options: RankOptions,
): Scored<R>[] {
  const { records, cosines, accessedMinutes, importance } = columns;
  const n = records.length;
  const k = Math.min(Math.ceil(options.limit ?? n), n);
  if (!(k > 0)) return [];
  const { recency: wr, importance: wi, relevance: wc } = options.weights;
  const atMin = gameMinutesFast(options.at);
  const logDecay = Math.log(options.decay ?? 0.995);

  // Hot loops use locals only (no closures or objects): they run over every memory.
  let xMin = Infinity, xMax = -Infinity;
  let iMin = Infinity, iMax = -Infinity;
  let cMin = Infinity, cMax = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = Math.max(0, (atMin - accessedMinutes[i]) / 60) * logDecay;
    if (x < xMin) xMin = x;
    if (x > xMax) xMax = x;
    const v = importance[i];
    if (v < iMin) iMin = v;
    if (v > iMax) iMax = v;
    const c = finite(cosines[i]);
    if (c < cMin) cMin = c;
    if (c > cMax) cMax = c;
  }
  const bounds = options.bounds;
  if (bounds) {
    for (const minutes of bounds.accessedMinutes) {
      const x = Math.max(0, (atMin - minutes) / 60) * logDecay;
      if (x < xMin) xMin = x;
      if (x > xMax) xMax = x;
    }
    iMin = Math.min(iMin, bounds.importance[0]);
    iMax = Math.max(iMax, bounds.importance[1]);
    if (bounds.cosine) {
      cMin = Math.min(cMin, finite(bounds.cosine[0]));
      cMax = Math.max(cMax, finite(bounds.cosine[1]));
    }
  }
  // Also true when every exponent is NaN (xMin > xMax).
  const exhaustive = !(xMin >= -EXP_SAFE && xMax <= EXP_SAFE && xMin <= xMax);

  let rMin = bounds ? Math.exp(xMin) : Infinity, rMax = bounds ? Math.exp(xMax) : -Infinity;
  let lastX = NaN, lastExp = NaN;
  for (let i = 0; i < n; i++) {
    const x = Math.max(0, (atMin - accessedMinutes[i]) / 60) * logDecay;
    if (exhaustive || x <= xMin + EXP_WINDOW || x >= xMax - EXP_WINDOW) {
      if (x !== lastX) lastExp = Math.exp(lastX = x);
      if (lastExp < rMin) rMin = lastExp;
      if (lastExp > rMax) rMax = lastExp;
    }
  }
  const rRange = rMax - rMin, iRange = iMax - iMin, cRange = cMax - cMin;

  // Score bounds as Σ (v − min) · (w / range) (+ w · CONSTANT_COMPONENT for a constant
  // component): no division or call per row. Every term is ≥ 0, so each is within a few ulps
  // of its exact counterpart, and PRUNE_SLACK covers that.
  const prune = !exhaustive && wr >= 0 && wi >= 0 && wc >= 0;
  const [rK, rB] = coefficients(wr, rRange);
  const [iK, iB] = coefficients(wi, iRange);
  const [cK, cB] = coefficients(wc, cRange);
  const bucketMin = prune ? Math.ceil(xMin * EXP_BUCKETS) : 0;
  const upper = new Float64Array(prune ? Math.ceil(xMax * EXP_BUCKETS) - bucketMin + 1 : 0)
    .fill(NaN);
  const top = new TopK(k, records);
  let threshold = -Infinity; // the worst kept score once `k` are kept (and pruning is safe)
  for (let i = 0; i < n; i++) {
    const x = Math.max(0, (atMin - accessedMinutes[i]) / 60) * logDecay;
    const c = finite(cosines[i]);
    if (threshold !== -Infinity) {
      // Exact: x · 32 and its ceiling are exact, so the bucket's exponent is ≥ x.
      const b = Math.ceil(x * EXP_BUCKETS) - bucketMin;
      let u = upper[b];
      if (u !== u) u = upper[b] = Math.exp((b + bucketMin) / EXP_BUCKETS) * (1 + EXP_WINDOW);
      const bound = (u - rMin) * rK + rB + ((importance[i] - iMin) * iK + iB) +
        ((c - cMin) * cK + cB);
      if (bound * PRUNE_SLACK < threshold) continue;
    }
    const score = wr * scaled(Math.exp(x), rMin, rRange) +
      wi * scaled(importance[i], iMin, iRange) + wc * scaled(c, cMin, cRange);
    if (top.offer(i, score) && prune) threshold = top.worst;
  }

  // A loop, not a closure: a closure would capture the bounds and slow the loops above.
  const ranked: Scored<R>[] = [];
  for (const [i, score] of top.best()) {
    const hours = Math.max(0, (atMin - accessedMinutes[i]) / 60);
    ranked.push({
      memory: records[i],
      score,
      components: {
        recency: scaled(Math.exp(hours * logDecay), rMin, rRange),
        importance: scaled(importance[i], iMin, iRange),
        relevance: scaled(finite(cosines[i]), cMin, cRange),
      },
      raw: { hoursSinceAccess: hours, importance: importance[i], cosine: finite(cosines[i]) },
    });
  }
  return ranked;
}

/**
 * Recency exponents beyond ±this are evaluated for every candidate: below about −708
 * `Math.exp` is subnormal and its relative error bound no longer holds.
 */
const EXP_SAFE = 700;
/**
 * Exponents this close to the extreme ones are evaluated for the exact recency bounds; also
 * the relative slack of the recency upper bounds. Far above `Math.exp`'s error (< 1 ulp).
 */
const EXP_WINDOW = 1e-12;
/** Recency upper bounds round the exponent up to a multiple of 1/32 (at most 3% above). */
const EXP_BUCKETS = 32;
/** Score bounds are multiplied by this before pruning: far more than their rounding error. */
const PRUNE_SLACK = 1 + 1e-12;

/** `[w / range, 0]`, or `[0, w · CONSTANT_COMPONENT]` for a constant component. */
function coefficients(weight: number, range: number): [number, number] {
  return range > 1e-12 ? [weight / range, 0] : [0, weight * CONSTANT_COMPONENT];
}

/** A cosine as scored: non-finite values count as 0. */
function finite(cosine: number): number {
  return Number.isFinite(cosine) ? cosine : 0;
}

/**
 * Min–max normalisation of one value: (v − min) / range, or CONSTANT_COMPONENT when the range
 * is (near) zero or NaN.
 */
function scaled(v: number, min: number, range: number): number {
  return range > 1e-12 ? (v - min) / range : CONSTANT_COMPONENT;
}

/** Min–max normalisation to [0, 1]; a constant (or single) series becomes CONSTANT_COMPONENT. */
export function normalise(values: Float64Array): Float64Array {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v < min) min = v;
    if (v > max) max = v;
  }
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = scaled(values[i], min, max - min);
  return out;
}
