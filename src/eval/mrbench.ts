/**
 * @module `deno task eval mrbench`: the suite answered under each prompting condition and scored
 * on MREval's eight metrics, in the shape of the paper's Tables 2 and 9.
 */
import {
  addUsage,
  type Calibration,
  emptyUsage,
  type MetricName,
  MREVAL_METRICS,
  type Usage,
} from "../domain/mod.ts";
import { type Deps, type JudgeDeps, type JudgeLabel, judgeLabel } from "../ports/mod.ts";
import {
  aggregate,
  averageOf,
  calibrationTable,
  characterInput,
  type Condition,
  CONDITION_LABEL,
  judgeRuns,
  mapBounded,
  type MetricScore,
  runProbe,
} from "../app/mod.ts";
import type { MrbenchSuite } from "./mrbench_suite.ts";

/** Probes answered at once. */
const CONCURRENCY = 4;

/** One row of the table: a condition's scores. */
export interface MrbenchRow {
  condition: Condition;
  label: string;
  metrics: Partial<Record<MetricName, MetricScore>>;
  average: { raw: number; calibrated: number };
  usage: { agent: Usage; judge: Usage };
}

/** The whole run. */
export interface MrbenchResult {
  judge: JudgeLabel;
  model: string;
  calibration: Record<MetricName, Calibration & { source: "paper" | "yours" }>;
  characters: number;
  probes: number;
  rows: MrbenchRow[];
  /** The judge's mean cost per judged item (one metric on one probe). */
  judgePerItem: { calls: number; promptTokens: number; completionTokens: number };
}

/** Options of {@linkcode runMrbench}. */
export interface MrbenchOptions {
  conditions: readonly Condition[];
  calibration?: Partial<Record<MetricName, Calibration>>;
  /** Called after each probe of each condition. */
  onProgress?: (progress: { condition: Condition; done: number; total: number }) => void;
}

/**
 * Runs the suite under each condition: every probe answered (plus its metrics' variants) and
 * judged on the metrics of its ability; the means calibrated.
 * @throws `model_*`.
 */
export async function runMrbench(
  deps: Pick<Deps, "model"> & JudgeDeps,
  suite: MrbenchSuite,
  options: MrbenchOptions,
): Promise<MrbenchResult> {
  const characters = new Map(suite.personas.map((p) => [p.id, p]));
  const table = calibrationTable(options.calibration);
  const metrics = [...MREVAL_METRICS];
  const rows: MrbenchRow[] = [];
  let judgedItems = 0;
  for (const condition of options.conditions) {
    let done = 0;
    const agentUsage: Usage[] = [];
    const runs = await mapBounded(suite.probes, CONCURRENCY, async (probe) => {
      const character = characters.get(probe.persona)!;
      const { persona: _, ...rest } = probe;
      const prepared = characterInput(character, rest);
      const { run, usage } = await runProbe(deps, prepared, {
        condition,
        metrics,
        attribution: { agentId: character.id, operation: "mrbench", seed: 1 },
      });
      agentUsage.push(usage);
      options.onProgress?.({ condition, done: ++done, total: suite.probes.length });
      return run;
    });
    const judged = await judgeRuns(deps, runs, {
      metrics,
      attribution: { operation: "mrbench", seed: 1 },
    });
    judgedItems += judged.items.length;
    const scores = aggregate(judged.items, table);
    rows.push({
      condition,
      label: CONDITION_LABEL[condition],
      metrics: scores,
      average: averageOf(scores),
      usage: { agent: addUsage(...agentUsage), judge: judged.usage },
    });
  }
  const judgeTotal = rows.reduce((u, r) => addUsage(u, r.usage.judge), emptyUsage());
  const per = (v: number) => (judgedItems === 0 ? 0 : Math.round((v / judgedItems) * 100) / 100);
  return {
    judge: judgeLabel(deps.judge),
    model: deps.model.info.main,
    calibration: table,
    characters: suite.personas.length,
    probes: suite.probes.length,
    rows,
    judgePerItem: {
      calls: per(judgeTotal.calls),
      promptTokens: per(judgeTotal.promptTokens),
      completionTokens: per(judgeTotal.completionTokens),
    },
  };
}

/**
 * The paper's table: one row per condition, the eight metrics (calibrated) and their average,
 * as Markdown; the judge and calibration named under it.
 */
export function mrbenchTable(result: MrbenchResult): string {
  const header = ["Condition", ...MREVAL_METRICS, "Avg."];
  const lines = [
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...result.rows.map((row) =>
      `| ${
        [
          row.label,
          ...MREVAL_METRICS.map((m) => row.metrics[m]?.calibrated.toFixed(2) ?? "–"),
          row.average.calibrated.toFixed(2),
        ].join(" | ")
      } |`
    ),
  ];
  const sources = new Set(Object.values(result.calibration).map((c) => c.source));
  const calibration = sources.has("yours")
    ? "your calibration (paper's Table 15 where you gave none)"
    : "the paper's Table 15 (fitted for GPT-4.1-mini as judge)";
  return [
    ...lines,
    "",
    `Model: ${result.model}. Judge: ${result.judge.label}. Calibration: ${calibration}. ${result.characters} characters, ${result.probes} probes. Judge cost per judged item (one metric on one probe): ${result.judgePerItem.calls} call, ${result.judgePerItem.promptTokens} prompt + ${result.judgePerItem.completionTokens} completion tokens.`,
  ].join("\n");
}
