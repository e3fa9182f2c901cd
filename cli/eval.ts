/**
 * @module `deno task eval`: MREval's calibration and MRBench table, and the believability
 * ranking of a saved world. Wiring and printing only; the runs are in `src/eval/`.
 */
import { z } from "zod";
import { Calibration, MetricName } from "../src/domain/mod.ts";
import { bundledMrbench, mrbenchSubset, mrbenchTable, runMrbench } from "../src/eval/mod.ts";
import { CALIBRATE_USAGE, calibrateRatings, parseRatings } from "./_eval_calibrate.ts";
import { MRBENCH_USAGE, parseMrbenchFlags } from "./_eval_mrbench.ts";
import { believabilityCommand } from "./_eval_believability.ts";
import { type EvalIo, evalServices, runOnServices } from "./_eval_io.ts";

export type { EvalIo };

const USAGE = `Evaluates characters (MREval, MRBench, believability).

Usage: deno task eval mrbench [flags]          MREval's table for the bundled suite
       deno task eval calibrate FILE [--out F]  fit the judge's calibration to your ratings
       deno task eval believability --world F   rank interview answers across ablations

Each command's --help lists its flags.`;

/**
 * Runs a command and returns its exit code: 0 done, 1 failed (configuration, model, files),
 * 2 bad arguments.
 */
export async function evalCommand(
  args: readonly string[],
  env: Record<string, string>,
  io: EvalIo,
): Promise<number> {
  const [command, ...rest] = args;
  switch (command) {
    case "mrbench":
      return await mrbenchCommand(rest, env, io);
    case "calibrate":
      return await calibrateCommand(rest, io);
    case "believability":
      return await believabilityCommand(rest, env, io);
    case undefined:
    case "-h":
    case "--help":
      io.out(USAGE);
      return command === undefined ? 2 : 0;
    default:
      io.err(`Unknown command "${command}":\n${USAGE}\n`);
      return 2;
  }
}

async function calibrateCommand(args: readonly string[], io: EvalIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.out(CALIBRATE_USAGE);
    return 0;
  }
  const outAt = args.indexOf("--out");
  const out = outAt === -1 ? undefined : args[outAt + 1];
  const files = outAt === -1 ? [...args] : args.filter((_, i) => i !== outAt && i !== outAt + 1);
  if (files.length !== 1 || (outAt !== -1 && out === undefined)) {
    io.err(
      `Cannot calibrate: give one ratings FILE (and a file after --out)\n${CALIBRATE_USAGE}\n`,
    );
    return 2;
  }
  const { ratings, problems } = parseRatings(await io.readText(files[0]));
  if (problems.length > 0) {
    io.err(`Cannot calibrate from ${files[0]}:\n  - ${problems.join("\n  - ")}\n`);
    return 1;
  }
  const { table, tooFew } = calibrateRatings(ratings);
  for (const m of tooFew) io.err(`${m}: only one rating, left out (needs two or more)\n`);
  const text = JSON.stringify(
    Object.fromEntries(Object.entries(table).map(([m, c]) => [m, { a: c.a, b: c.b }])),
  );
  for (const [m, c] of Object.entries(table)) {
    io.err(`${m}: human = ${c.a} + ${c.b} · judge (${c.n} ratings)\n`);
  }
  if (out !== undefined) await io.writeText(out, `${text}\n`);
  io.out(text);
  return 0;
}

const CalibrationFile = z.partialRecord(MetricName, Calibration);

async function mrbenchCommand(
  args: readonly string[],
  env: Record<string, string>,
  io: EvalIo,
): Promise<number> {
  const parsed = parseMrbenchFlags(args);
  if (parsed.kind === "help") {
    io.out(MRBENCH_USAGE);
    return 0;
  }
  if (parsed.kind === "invalid") {
    io.err(`Cannot run mrbench with these flags:\n  - ${parsed.problems.join("\n  - ")}\n`);
    return 2;
  }
  const flags = parsed.flags;
  let suite = bundledMrbench();
  if (flags.characters) {
    const unknown = flags.characters.filter((c) => !suite.personas.some((p) => p.id === c));
    if (unknown.length > 0) {
      io.err(
        `Unknown characters ${unknown.join(", ")}: the suite has ${
          suite.personas.map((p) => p.id).join(", ")
        }\n`,
      );
      return 2;
    }
    suite = mrbenchSubset(suite, flags.characters);
  }
  let calibration: z.infer<typeof CalibrationFile> | undefined;
  if (flags.calibration) {
    const read = CalibrationFile.safeParse(JSON.parse(await io.readText(flags.calibration)));
    if (!read.success) {
      io.err(
        `Cannot read the calibration in ${flags.calibration}: ${read.error.issues[0].message}\n`,
      );
      return 1;
    }
    calibration = read.data;
  }
  const services = await evalServices(env, io, 64);
  if (services === null) return 1;
  return await runOnServices(services, io, async () => {
    const started = performance.now();
    const result = await runMrbench(
      { model: services.deps.model, judge: services.app.judge },
      suite,
      {
        conditions: flags.conditions,
        calibration,
        onProgress: ({ condition, done, total }) => {
          if (done === total || done % 20 === 0) {
            io.err(`mrbench ${condition}: ${done}/${total} probes\n`);
          }
        },
      },
    );
    io.err(`mrbench done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    io.out(mrbenchTable(result));
    if (flags.json) await io.writeText(flags.json, `${JSON.stringify(result, null, 2)}\n`);
  });
}

if (import.meta.main) {
  const encoder = new TextEncoder();
  const code = await evalCommand(Deno.args, Deno.env.toObject(), {
    // deno-lint-ignore no-console
    out: (line) => console.log(line),
    err: (text) => {
      const bytes = encoder.encode(text);
      for (let at = 0; at < bytes.length;) at += Deno.stderr.writeSync(bytes.subarray(at));
    },
    readText: (path) => Deno.readTextFile(path),
    writeText: (path, text) => Deno.writeTextFile(path, text),
  });
  Deno.exit(code);
}
