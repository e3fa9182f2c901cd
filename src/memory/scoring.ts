/** @module The retrieval score: recency, importance and relevance, min–max normalised (SPEC §3). */
import { z } from "zod";
import type { MemoryRecord } from "./memory.ts";
import { gameMinutesFast } from "../time/game_time.ts";

/** Weights of the three components. */
export const Weights = z
  .strictObject({
    recency: z.number().min(0).max(100),
    importance: z.number().min(0).max(100),
    relevance: z.number().min(0).max(100),
  })
  .meta({ id: "Weights" });
export type Weights = z.infer<typeof Weights>;

/** Named weight presets: the paper's equal weights, and the reference code's. */
export const WEIGHT_PRESETS = {
  paper: { recency: 1, importance: 1, relevance: 1 },
  reference: { recency: 0.5, importance: 2, relevance: 3 },
} as const satisfies Record<string, Weights>;

/** Weights given as a preset name or explicit numbers. */
export const WeightsOrPreset = z
  .union([z.enum(["paper", "reference"]), Weights])
  .meta({
    id: "WeightsOrPreset",
    description:
      '"paper" = 1/1/1, "reference" = recency 0.5 / relevance 3 / importance 2, or your own numbers',
  });
export type WeightsOrPreset = z.infer<typeof WeightsOrPreset>;

/** Explicit weights of a preset or object. */
export function resolveWeights(w: WeightsOrPreset): Weights {
  return typeof w === "string" ? { ...WEIGHT_PRESETS[w] } : w;
}

/** A candidate's raw inputs. */
export interface RawComponents {
  hoursSinceAccess: number;
  importance: number;
  cosine: number;
}

/** A scored memory. */
export interface Scored {
  memory: MemoryRecord;
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

/** Options for {@linkcode rankCandidates}. */
export interface RankOptions {
  /** Game time of the query, for recency. */
  at: string;
  weights: Weights;
  /** Recency decay per game hour. @default 0.995 */
  decay?: number;
  /** Return only the best `limit`. @default all */
  limit?: number;
}

/**
 * Scores candidates and returns them best first (ties: newer, then id). recency =
 * decay^(game hours since last access, never negative), importance = 1–10, relevance = the
 * cosine in `cosines[i]`; each is min–max normalised over all candidates and the score is
 * Σ weight·component. Linear in the candidates; only the best `limit` are sorted.
 */
export function rankCandidates(
  memories: readonly MemoryRecord[],
  cosines: ArrayLike<number>,
  options: RankOptions,
): Scored[] {
  const n = memories.length;
  const { weights } = options;
  const atMin = gameMinutesFast(options.at);
  const logDecay = Math.log(options.decay ?? 0.995);
  const hours = new Float64Array(n);
  const rec = new Float64Array(n);
  const imp = new Float64Array(n);
  const cos = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const m = memories[i];
    const h = Math.max(0, (atMin - gameMinutesFast(m.lastAccessedAt)) / 60);
    hours[i] = h;
    rec[i] = Math.exp(h * logDecay);
    imp[i] = m.importance;
    const c = cosines[i];
    cos[i] = Number.isFinite(c) ? c : 0;
  }
  const nr = normalise(rec);
  const ni = normalise(imp);
  const nc = normalise(cos);
  const score = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    score[i] = weights.recency * nr[i] + weights.importance * ni[i] + weights.relevance * nc[i];
  }
  const order = topIndices(score, memories, Math.min(options.limit ?? n, n));
  return order.map((i) => ({
    memory: memories[i],
    score: score[i],
    components: { recency: nr[i], importance: ni[i], relevance: nc[i] },
    raw: { hoursSinceAccess: hours[i], importance: imp[i], cosine: cos[i] },
  }));
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
  const range = max - min;
  const out = new Float64Array(values.length);
  if (!(range > 1e-12)) return out.fill(CONSTANT_COMPONENT);
  for (let i = 0; i < values.length; i++) out[i] = (values[i] - min) / range;
  return out;
}

function better(i: number, j: number, score: Float64Array, memories: readonly MemoryRecord[]) {
  if (score[i] !== score[j]) return score[i] > score[j];
  const a = memories[i];
  const b = memories[j];
  if (a.createdAt !== b.createdAt) return a.createdAt > b.createdAt;
  return a.id < b.id;
}

/** The indices of the best `k` scores, best first, with a bounded min-heap (O(n log k)). */
function topIndices(score: Float64Array, memories: readonly MemoryRecord[], k: number): number[] {
  if (k <= 0) return [];
  const heap: number[] = []; // heap[0] is the worst of the kept
  const worse = (i: number, j: number) => better(j, i, score, memories);
  const up = (p: number) => {
    while (p > 0) {
      const parent = (p - 1) >> 1;
      if (!worse(heap[p], heap[parent])) break;
      [heap[p], heap[parent]] = [heap[parent], heap[p]];
      p = parent;
    }
  };
  const down = (p: number) => {
    for (;;) {
      const l = 2 * p + 1;
      const r = l + 1;
      let w = p;
      if (l < heap.length && worse(heap[l], heap[w])) w = l;
      if (r < heap.length && worse(heap[r], heap[w])) w = r;
      if (w === p) return;
      [heap[p], heap[w]] = [heap[w], heap[p]];
      p = w;
    }
  };
  for (let i = 0; i < score.length; i++) {
    if (heap.length < k) {
      heap.push(i);
      up(heap.length - 1);
    } else if (better(i, heap[0], score, memories)) {
      heap[0] = i;
      down(0);
    }
  }
  return heap.sort((a, b) => (better(a, b, score, memories) ? -1 : 1));
}
