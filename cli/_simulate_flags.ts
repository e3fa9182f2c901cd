/** @module The flags of `deno task simulate`, parsed and validated with clear messages. */
import { parseArgs } from "node:util";
import { z } from "zod";
import { WorldTemplate } from "../src/domain/mod.ts";

const MAX_HOURS = 24 * 30;
const MAX_TOWNS = 400; // 10,000 agents: issue 25's scale run
const MAX_SEED = 2 ** 31 - 1;

/** Usage text for `--help`. */
export const SIMULATE_USAGE =
  `Runs a template town in memory and reports its cost and emergent behaviour.

Usage: deno task simulate --hours N [--template smallville] [--concurrency N]
                          [--minutes-per-tick M] [--seed N] [--group-talk] [--no-interview]
                          [--json] [--save FILE]
                          [--towns N [--processes P] [--first-town N]]

  --hours N             game hours to simulate, more than 0 and at most 720 (required)
  --template NAME       the town to run (default: smallville; the only one)
  --towns N             run N copies of the town at once, 1-${MAX_TOWNS}, every tick planned and
                        enqueued on Deno KV queues and stepped by their consumer, as the
                        server runs ticks; prints one summary per town and the totals.
                        With --seed, town n gets seed + n - 1
  --processes P         with --towns: split the towns over P processes, 1-16 (default: 1),
                        each with its own store and queue consumer, to use P cores
  --first-town N        with --towns: number the towns from N (world ids, seeds); the
                        processes of --processes each run a share this way (default: 1)
  --concurrency N       agents stepped at once per tick, 1-64 (default: 8)
  --minutes-per-tick M  game minutes per tick, 1-60 (default: 10)
  --seed N              replay exactly: the same seed gives the same calls, events and
                        memories at any concurrency (a whole number, 0-2147483647; the
                        world's \`seed\` setting). Without it runs may differ
  --group-talk          turn the world's groupTalk setting on: others who may talk in the
                        place join a conversation a tick starts (one group, not pairs)
  --no-interview        skip the interviews after the run (below): with a paid model they
                        cost about two calls per pair of agents
  --json                print the summary as one JSON line, the last line of stdout
                        (with --towns: {"towns": [one summary per town], "total": …})
  --save FILE           write the simulated world to FILE as an export (NDJSON) to load
                        with \`deno task world import FILE\` or POST /v1/worlds/import
  -h, --help            show this help

The model comes from the environment: the offline model unless OPENAI_API_KEY or
OPENAI_BASE_URL is set (as for \`deno task start\`). Storage is always in memory.
After a run of one town (unless --no-interview) every agent is interviewed (as POST /v1/worlds/{world}/metrics does:
about the two facts, each other agent and the party) and the judge (SIMULACRA_JUDGE_MODEL,
else the offline one) reads the answers: about one question per agent and other agent.
Progress goes to stderr; the summary to stdout.`;

function numberFlag(flag: string, required?: string) {
  return z.number({
    error: (issue) => issue.input === undefined && required ? required : `${flag} must be a number`,
  });
}

function wholeNumber(flag: string, min: number, max: number) {
  return numberFlag(flag)
    .int(`${flag} must be a whole number`)
    .min(min, `${flag} must be at least ${min}`)
    .max(max, `${flag} must be at most ${max}`);
}

/** Validated flags (numbers already converted from their text). */
export const SimulateFlags = z.strictObject({
  template: z
    .enum(WorldTemplate.options, {
      error: (issue) =>
        `--template "${issue.input}" is not a town: use ${
          WorldTemplate.options.map((o) => `"${o}"`).join(", ")
        }`,
    })
    .default("smallville"),
  hours: numberFlag("--hours", "--hours is required, e.g. --hours 24")
    .gt(0, "--hours must be more than 0")
    .max(MAX_HOURS, `--hours must be at most ${MAX_HOURS}`),
  concurrency: wholeNumber("--concurrency", 1, 64).default(8),
  minutesPerTick: wholeNumber("--minutes-per-tick", 1, 60).default(10),
  seed: wholeNumber("--seed", 0, MAX_SEED).optional(),
  towns: wholeNumber("--towns", 1, MAX_TOWNS).optional(),
  processes: wholeNumber("--processes", 1, 16).default(1),
  firstTown: wholeNumber("--first-town", 1, MAX_SEED).default(1),
  json: z.boolean().default(false),
  groupTalk: z.boolean().default(false),
  interview: z.boolean().default(true),
  save: z.string().min(1, "--save needs a file name").optional(),
})
  .refine((f) => f.towns === undefined || f.save === undefined, {
    message: "--save writes one town: leave out --towns to save a run",
  })
  .refine((f) => f.towns !== undefined || (f.processes === 1 && f.firstTown === 1), {
    message: "--processes and --first-town split a run of several towns: add --towns N",
  })
  .refine((f) => f.seed === undefined || f.seed + f.firstTown + (f.towns ?? 1) - 2 <= MAX_SEED, {
    message:
      `--seed + the last town's number - 1 must be at most ${MAX_SEED} (town n gets seed + n - 1)`,
  });
export type SimulateFlags = z.infer<typeof SimulateFlags>;

function asNumber(text: string | boolean | undefined): number | undefined {
  if (typeof text !== "string") return undefined;
  return text.trim() === "" ? Number.NaN : Number(text);
}

/** What the command line asks for: help, a run, or nothing valid (with every problem). */
export type ParsedFlags =
  | { kind: "help" }
  | { kind: "run"; flags: SimulateFlags }
  | { kind: "invalid"; problems: string[] };

/** Parses `deno task simulate` arguments. Never throws. */
export function parseSimulateFlags(args: readonly string[]): ParsedFlags {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...args],
      options: {
        template: { type: "string" },
        hours: { type: "string" },
        concurrency: { type: "string" },
        "minutes-per-tick": { type: "string" },
        seed: { type: "string" },
        towns: { type: "string" },
        processes: { type: "string" },
        "first-town": { type: "string" },
        json: { type: "boolean" },
        "group-talk": { type: "boolean" },
        "no-interview": { type: "boolean" },
        save: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (err) {
    return { kind: "invalid", problems: [(err as Error).message] };
  }
  if (values.help) return { kind: "help" };
  const parsed = SimulateFlags.safeParse({
    template: values.template,
    hours: asNumber(values.hours),
    concurrency: asNumber(values.concurrency),
    minutesPerTick: asNumber(values["minutes-per-tick"]),
    ...(values.seed === undefined ? {} : { seed: asNumber(values.seed) }),
    ...(values.towns === undefined ? {} : { towns: asNumber(values.towns) }),
    processes: asNumber(values.processes),
    firstTown: asNumber(values["first-town"]),
    json: values.json,
    groupTalk: values["group-talk"],
    interview: values["no-interview"] !== true,
    ...(values.save === undefined ? {} : { save: values.save }),
  });
  if (!parsed.success) {
    return { kind: "invalid", problems: parsed.error.issues.map((i) => i.message) };
  }
  return { kind: "run", flags: parsed.data };
}
