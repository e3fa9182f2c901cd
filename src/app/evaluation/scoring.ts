/** @module The judge scores each requested metric on the probes of its ability; means are calibrated per metric (Appendix J). */
import {
  addUsage,
  type Attribution,
  calibrate,
  type Calibration,
  type JudgeScoreInput,
  METRIC_ABILITY,
  type MetricName,
  MREVAL_METRICS,
  PAPER_CALIBRATION,
  type Usage,
} from "../../domain/mod.ts";
import type { JudgeDeps } from "../../ports/mod.ts";
import { judgeScore } from "../../mind/mod.ts";
import { mapBounded } from "../engine/mod.ts";
import type { MetricScore } from "./evaluate_schema.ts";
import type { ProbeRun } from "./probe_runs.ts";

/** Judge calls at once. */
const CONCURRENCY = 4;

/** What the judge reads for one metric of one run; null when the run lacks what it needs. */
export function judgeInput(metric: MetricName, run: ProbeRun): JudgeScoreInput | null {
  const base = { metric, character: run.character, probe: run.probe.message, answer: run.answer };
  switch (metric) {
    case "MA-SI":
      return run.anonymised
        ? {
          ...base,
          comparison: {
            label: "the answer with names and identity cues removed",
            text: run.anonymised.text,
          },
        }
        : null;
    case "MA-AF":
      return run.anonymised && run.probe.gold
        ? {
          ...base,
          character: run.anonymised.character,
          answer: run.anonymised.text,
          reference: { label: "the gold answer", text: run.probe.gold },
        }
        : null;
    case "MS-FA":
      return run.contraryFacet !== undefined
        ? {
          ...base,
          facet: run.facet ?? undefined,
          comparison: { label: "the answer given a contrary facet", text: run.contraryFacet },
        }
        : null;
    case "MS-FU":
      return run.noFacets !== undefined
        ? {
          ...base,
          facet: run.facet ?? undefined,
          comparison: { label: "the answer given no scene facets", text: run.noFacets },
        }
        : null;
    case "MB-AL":
      return {
        ...base,
        ...(run.probe.forbidden
          ? { reference: { label: "the forbidden answer", text: run.probe.forbidden } }
          : {}),
      };
    case "MB-CR":
    case "ME-HLE":
      return base;
    case "ME-MAC":
      return {
        ...base,
        reference: {
          label: "the character's memories and the conversation",
          text: run.context || "(none)",
        },
      };
  }
}

/** One judged item: a metric on a run. */
export interface JudgedItem {
  metric: MetricName;
  run: number;
  score: number;
  reason: string;
}

/**
 * Asks the judge for every requested metric on every run of the metric's ability.
 * @throws `model_*` (a judge answer failing its schema twice: 502 naming the metric).
 */
export async function judgeRuns(
  deps: JudgeDeps,
  runs: readonly ProbeRun[],
  options: { metrics: readonly MetricName[]; attribution: Attribution },
): Promise<{ items: JudgedItem[]; usage: Usage }> {
  const tasks = MREVAL_METRICS.filter((m) => options.metrics.includes(m)).flatMap((metric) =>
    runs.flatMap((run, index) => {
      if (run.probe.ability !== METRIC_ABILITY[metric]) return [];
      const input = judgeInput(metric, run);
      return input === null ? [] : [{ metric, index, input }];
    })
  );
  const usages: Usage[] = [];
  const items = await mapBounded(tasks, CONCURRENCY, async (t) => {
    const { value, usage } = await judgeScore(deps, t.input, {
      ...options.attribution,
      operation: `judge.${t.metric}`,
    });
    usages.push(usage);
    return { metric: t.metric, run: t.index, score: value.score, reason: value.reason };
  });
  return { items, usage: addUsage(...usages) };
}

/** Calibration of each metric: the user's where given, else the paper's. */
export function calibrationTable(
  yours: Partial<Record<MetricName, Calibration>> = {},
): Record<MetricName, Calibration & { source: "paper" | "yours" }> {
  return Object.fromEntries(MREVAL_METRICS.map((m) => [
    m,
    yours[m] ? { ...yours[m], source: "yours" } : { ...PAPER_CALIBRATION[m], source: "paper" },
  ])) as Record<MetricName, Calibration & { source: "paper" | "yours" }>;
}

const round2 = (v: number) => Math.round(v * 100) / 100;

/** Each metric's mean score, its calibration and the reason on its lowest-scored item. */
export function aggregate(
  items: readonly JudgedItem[],
  table: Record<MetricName, Calibration>,
): Partial<Record<MetricName, MetricScore>> {
  const out: Partial<Record<MetricName, MetricScore>> = {};
  for (const metric of MREVAL_METRICS) {
    const mine = items.filter((i) => i.metric === metric);
    if (mine.length === 0) continue;
    const raw = round2(mine.reduce((s, i) => s + i.score, 0) / mine.length);
    const lowest = mine.reduce((a, b) => (b.score < a.score ? b : a));
    out[metric] = {
      raw,
      calibrated: calibrate(raw, table[metric]),
      reason: lowest.reason,
      probes: mine.length,
    };
  }
  return out;
}

/** The mean of the metrics' raw and calibrated scores (the table's "Avg."). */
export function averageOf(
  metrics: Partial<Record<MetricName, MetricScore>>,
): { raw: number; calibrated: number } {
  const scores = Object.values(metrics);
  if (scores.length === 0) return { raw: 0, calibrated: 0 };
  const mean = (f: (s: MetricScore) => number) =>
    round2(scores.reduce((t, s) => t + f(s), 0) / scores.length);
  return { raw: mean((s) => s.raw), calibrated: mean((s) => s.calibrated) };
}
