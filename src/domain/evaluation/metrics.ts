/**
 * @module MREval's eight metrics, their abilities and the paper's calibration of its judge
 * (Memory-Driven Role-Playing §3.2, Appendix J Table 15, Appendix N).
 */
import { z } from "zod";

/** The eight metrics by the paper's names, in the paper's column order. */
export const MREVAL_METRICS = [
  "MA-SI",
  "MA-AF",
  "MS-FA",
  "MS-FU",
  "MB-AL",
  "MB-CR",
  "ME-MAC",
  "ME-HLE",
] as const;

/** One of the eight metric names. */
export const MetricName = z.enum(MREVAL_METRICS).meta({
  id: "MetricName",
  description:
    "MA-SI source invariance, MA-AF alias fidelity, MS-FA facet alignment, MS-FU facet utility, MB-AL answer leakage, MB-CR controlled response, ME-MAC memory-aligned coherence, ME-HLE human-like enactment",
});
export type MetricName = z.infer<typeof MetricName>;

/** The four abilities; each probe tests one. */
export const Ability = z.enum(["anchoring", "selecting", "bounding", "enacting"]).meta({
  id: "EvalAbility",
});
export type Ability = z.infer<typeof Ability>;

/** The ability whose probes a metric is scored on. */
export const METRIC_ABILITY: Record<MetricName, Ability> = {
  "MA-SI": "anchoring",
  "MA-AF": "anchoring",
  "MS-FA": "selecting",
  "MS-FU": "selecting",
  "MB-AL": "bounding",
  "MB-CR": "bounding",
  "ME-MAC": "enacting",
  "ME-HLE": "enacting",
};

/** A linear map from judge scores to the human scale: `human = a + b · judge`. */
export const Calibration = z.object({
  a: z.number().meta({ description: "Intercept (additive bias)" }),
  b: z.number().meta({ description: "Slope (scale sensitivity)" }),
});
export type Calibration = z.infer<typeof Calibration>;

/** Per-metric calibration parameters. */
export type CalibrationTable = Record<MetricName, Calibration>;

/**
 * The paper's English parameters for its judge (GPT-4.1-mini, temperature 0), Table 15. They
 * fit that judge only: another judge's scores are better calibrated with your own ratings
 * (`deno task eval calibrate`).
 */
export const PAPER_CALIBRATION: CalibrationTable = {
  "MA-SI": { a: 2.133, b: 0.701 },
  "MA-AF": { a: 1.189, b: 0.707 },
  "MS-FA": { a: 2.245, b: 0.712 },
  "MS-FU": { a: 2.793, b: 0.681 },
  "MB-AL": { a: 4.464, b: 0.446 },
  "MB-CR": { a: 5.016, b: 0.277 },
  "ME-MAC": { a: -0.183, b: 0.864 },
  "ME-HLE": { a: 0.757, b: 0.809 },
};

/** The identity map: scores left as the judge gave them. */
export const IDENTITY_CALIBRATION: CalibrationTable = Object.fromEntries(
  MREVAL_METRICS.map((m) => [m, { a: 0, b: 1 }]),
) as CalibrationTable;

/** `a + b · raw`, rounded to two decimals (the paper's precision). */
export function calibrate(raw: number, { a, b }: Calibration): number {
  return Math.round((a + b * raw) * 100) / 100;
}

/** One human rating of a judged item: what the judge said and what the person said. */
export interface RatedPair {
  judge: number;
  human: number;
}

/**
 * The least-squares line `human = a + b · judge` through the pairs (Appendix J, Eq. 1). With
 * fewer than two distinct judge scores the slope is undefined: the line is then flat through
 * the mean human score (b = 0).
 * @throws {RangeError} when there are no pairs.
 */
export function fitCalibration(pairs: readonly RatedPair[]): Calibration {
  if (pairs.length === 0) throw new RangeError("Cannot fit a calibration to no ratings");
  const n = pairs.length;
  const mx = pairs.reduce((s, p) => s + p.judge, 0) / n;
  const my = pairs.reduce((s, p) => s + p.human, 0) / n;
  const sxx = pairs.reduce((s, p) => s + (p.judge - mx) ** 2, 0);
  const sxy = pairs.reduce((s, p) => s + (p.judge - mx) * (p.human - my), 0);
  const b = sxx === 0 ? 0 : sxy / sxx;
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return { a: round(my - b * mx), b: round(b) };
}
