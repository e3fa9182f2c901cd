/** @module Private to cli/: `deno task eval calibrate FILE`: per-metric least-squares calibration of the judge from your human ratings. */
import { z } from "zod";
import { type Calibration, fitCalibration, MetricName, MREVAL_METRICS } from "../src/domain/mod.ts";

/** One rated item: the metric, the judge's raw score and a person's score of the same item. */
const Rating = z.object({
  metric: MetricName,
  judge: z.coerce.number().min(0).max(10),
  human: z.coerce.number().min(0).max(10),
});

/** Usage text. */
export const CALIBRATE_USAGE =
  `Fits the judge's calibration to your ratings (least squares, per metric).

Usage: deno task eval calibrate FILE [--out FILE]

FILE holds rated items: a JSON array of {"metric", "judge", "human"} or a CSV with the header
metric,judge,human (metric: MA-SI … ME-HLE; judge: the judge's raw score, e.g. a probe's
"scores" from …/evaluate; human: your 1–10 rating of the same answer). Each metric needs two
or more ratings. Prints {"MA-SI": {"a": …, "b": …}, …}: pass it as "calibration" to
POST …/evaluate or as --calibration to \`deno task eval mrbench\`; --out writes it to a file.`;

/** The ratings in a file's text (JSON or CSV); problems name the line or item. */
export function parseRatings(
  text: string,
): { ratings: z.infer<typeof Rating>[]; problems: string[] } {
  const trimmed = text.trim();
  let rows: unknown[];
  if (trimmed.startsWith("[")) {
    try {
      rows = JSON.parse(trimmed);
    } catch (err) {
      return { ratings: [], problems: [`not valid JSON: ${(err as Error).message}`] };
    }
  } else {
    const [header, ...lines] = trimmed.split(/\r?\n/).filter((l) => l.trim() !== "");
    const names = (header ?? "").split(",").map((h) => h.trim());
    rows = lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [names[i], v.trim()])));
  }
  const ratings: z.infer<typeof Rating>[] = [];
  const problems: string[] = [];
  rows.forEach((row, i) => {
    const parsed = Rating.safeParse(row);
    if (parsed.success) ratings.push(parsed.data);
    else {
      problems.push(
        `item ${i + 1}: ${
          parsed.error.issues.map((x) => `${x.path.join(".")} ${x.message}`).join("; ")
        }`,
      );
    }
  });
  return { ratings, problems };
}

/** Each rated metric's (a, b), and the metrics with too few ratings. */
export function calibrateRatings(
  ratings: readonly z.infer<typeof Rating>[],
): { table: Partial<Record<MetricName, Calibration & { n: number }>>; tooFew: MetricName[] } {
  const table: Partial<Record<MetricName, Calibration & { n: number }>> = {};
  const tooFew: MetricName[] = [];
  for (const metric of MREVAL_METRICS) {
    const mine = ratings.filter((r) => r.metric === metric);
    if (mine.length === 0) continue;
    if (mine.length < 2) {
      tooFew.push(metric);
      continue;
    }
    table[metric] = { ...fitCalibration(mine), n: mine.length };
  }
  return { table, tooFew };
}
