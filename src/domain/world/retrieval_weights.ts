/**
 * @module The retrieval weights a world sets (Generative Agents §4.1): recency, importance and relevance, as a
 * named preset or numbers. A world setting, so it lives with the world; memory scoring reads it.
 */
import { z } from "zod";

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
