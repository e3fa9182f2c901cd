/** @module Private to cli/: the flags of `deno task eval mrbench`. */
import { parseArgs } from "node:util";
import { type Condition, CONDITION_LABEL } from "../src/app/mod.ts";

/** Usage text. */
export const MRBENCH_USAGE = `Runs the bundled MRBench-style suite and prints MREval's table.

Usage: deno task eval mrbench [--conditions base,card,mrprompt] [--ablations schema,protocol]
                              [--characters lucia,mira] [--calibration FILE] [--json FILE]

  --conditions LIST   rows to run: base, card, mrprompt (default: all three)
  --ablations LIST    MRPrompt's ablation rows: schema (+schema), protocol (+protocol)
                      (default: both; --ablations none for none)
  --characters LIST   only these characters of the suite (default: all ten)
  --calibration FILE  your (a, b) per metric from \`deno task eval calibrate\`
                      (default: the paper's Table 15, fitted for GPT-4.1-mini as judge)
  --json FILE         also write the full result as JSON
  -h, --help          show this help

The agent's model is the configured one (the offline model unless OPENAI_API_KEY or
OPENAI_BASE_URL is set); the judge is SIMULACRA_JUDGE_MODEL, else the offline rule-based
judge, named under the table. Progress goes to stderr, the table to stdout.`;

/** The parsed flags. */
export interface MrbenchFlags {
  conditions: Condition[];
  characters?: string[];
  calibration?: string;
  json?: string;
}

const list = (v: string | undefined) =>
  v === undefined ? undefined : v.split(",").map((s) => s.trim()).filter((s) => s !== "");

/** Parses the flags; problems are listed, never thrown. */
export function parseMrbenchFlags(
  args: readonly string[],
): { kind: "help" } | { kind: "invalid"; problems: string[] } | {
  kind: "ok";
  flags: MrbenchFlags;
} {
  let values;
  try {
    values = parseArgs({
      args: [...args],
      options: {
        conditions: { type: "string" },
        ablations: { type: "string" },
        characters: { type: "string" },
        calibration: { type: "string" },
        json: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (err) {
    return { kind: "invalid", problems: [(err as Error).message] };
  }
  if (values.help) return { kind: "help" };
  const problems: string[] = [];
  const conditions = list(values.conditions) ?? ["base", "card", "mrprompt"];
  const ablations = (list(values.ablations) ?? ["schema", "protocol"]).filter((a) => a !== "none");
  for (const c of conditions) {
    if (!["base", "card", "mrprompt"].includes(c)) {
      problems.push(`--conditions: unknown "${c}" (base, card, mrprompt)`);
    }
  }
  for (const a of ablations) {
    if (!["schema", "protocol"].includes(a)) {
      problems.push(`--ablations: unknown "${a}" (schema, protocol, none)`);
    }
  }
  const rows = [...conditions, ...ablations].filter((c, i, all) =>
    all.indexOf(c) === i
  ) as Condition[];
  if (rows.length === 0) problems.push("nothing to run: give --conditions or --ablations");
  if (problems.length > 0) return { kind: "invalid", problems };
  return {
    kind: "ok",
    flags: {
      conditions: rows.sort((x, y) => ORDER.indexOf(x) - ORDER.indexOf(y)),
      characters: list(values.characters),
      calibration: values.calibration,
      json: values.json,
    },
  };
}

/** Rows in the paper's order: baselines, ablations, then the full method. */
const ORDER = Object.keys(
  { base: 0, card: 0, protocol: 0, schema: 0, mrprompt: 0 } satisfies Record<
    keyof typeof CONDITION_LABEL,
    number
  >,
);
