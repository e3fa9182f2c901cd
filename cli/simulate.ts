/**
 * @module `deno task simulate`: runs a template town in memory with the configured model (the
 * offline one by default) and prints its cost per agent-day and emergent behaviour. Wiring and
 * printing only; the run and its measures are `simulateTown` in `src/eval/`.
 */
import { openKvStorage } from "../lib/kv/kv_storage.ts";
import { cliServices } from "./_cli_deps.ts";
import type { Deps } from "../src/ports/mod.ts";
import { exportWorld, tickWorld, type TickWorldOptions } from "../src/app/mod.ts";
import { SimulacraError, type WorldId } from "../src/domain/mod.ts";
import {
  consumeTicksFromKv,
  mergeRuns,
  simulateTowns,
  townsCacheBytes,
} from "./_simulate_towns.ts";
import { runShards, type ShardRun, shardsOf } from "./_simulate_shards.ts";
import { simulateTown, type SimulationProgress, townByInterview } from "../src/eval/mod.ts";
import { parseSimulateFlags, SIMULATE_USAGE, type SimulateFlags } from "./_simulate_flags.ts";
import { writeLines } from "../lib/ndjson_lines.ts";
import { progressLine, summaryText, townsText } from "./_simulate_report.ts";

/** Where the command writes; the entry passes the process's streams. */
export interface SimulateIo {
  /** One line of stdout. */
  out(line: string): void;
  /** Raw text to stderr (no newline added). */
  err(text: string): void;
  /** Whether stderr is a terminal, so the progress line can redraw itself. */
  errIsTerminal: boolean;
  /** Opens a file for `--save`. @default Deno.open, created or truncated */
  openWrite?: (path: string) => Promise<WritableStream<Uint8Array>>;
}

/**
 * Runs the command and returns its exit code: 0 done, 1 failed (configuration, model or store),
 * 2 bad flags.
 */
export async function simulateCommand(
  args: readonly string[],
  env: Record<string, string>,
  io: SimulateIo,
): Promise<number> {
  const parsed = parseSimulateFlags(args);
  if (parsed.kind === "help") {
    io.out(SIMULATE_USAGE);
    return 0;
  }
  if (parsed.kind === "invalid") {
    io.err(
      `Cannot simulate with these flags (see \`deno task simulate --help\`):\n  - ${
        parsed.problems.join("\n  - ")
      }\n`,
    );
    return 2;
  }
  const flags = parsed.flags;
  if (flags.towns !== undefined && flags.processes > 1) {
    return await simulateInProcesses({ ...flags, towns: flags.towns }, io);
  }
  const services = await cliServices(env, (text) => io.err(text), {
    // Always in memory: a simulation is a throwaway town, whatever storage is configured.
    adjust: (config) => ({
      ...config,
      storage: {
        kind: "embedded",
        dataDir: ":memory:",
        cacheMb: townsCacheBytes(flags.towns) / 2 ** 20,
      },
    }),
    openEmbedded: (_dir, dimensions, { cacheBytes }) => openKvStorage({ dimensions, cacheBytes }),
  });
  if (services === null) return 1;
  const { deps } = services;
  try {
    const towns = flags.towns === undefined ? "" : `${flags.towns} copies of `;
    io.err(
      `Simulating ${towns}${flags.template} for ${flags.hours} game hours in memory; model: ${
        modelLine(deps)
      }\n`,
    );
    const bar = progressBar(io, performance.now());
    const run = {
      template: flags.template,
      catalog: services.towns,
      hours: flags.hours,
      concurrency: flags.concurrency,
      minutesPerTick: flags.minutesPerTick,
      seed: flags.seed,
      ...(flags.groupTalk ? { settings: { groupTalk: true } } : {}),
      tick: (d: Deps, worldId: WorldId, options: TickWorldOptions) =>
        tickWorld(d, worldId, options),
      wallClock: () => performance.now(),
      onProgress: bar.update,
    };
    if (flags.towns !== undefined) {
      await using consumer = await consumeTicksFromKv(deps);
      const result = await simulateTowns(deps, {
        ...run,
        tick: (d: Deps, worldId: WorldId, options: TickWorldOptions) =>
          tickWorld(d, worldId, { ...options, queue: consumer.queue }),
        towns: flags.towns,
        firstTown: flags.firstTown,
      });
      bar.done();
      io.out(
        flags.json
          ? JSON.stringify({ ...result, peakRssMb: bar.peakRssMb() })
          : townsText(result, [bar.peakRssMb()]),
      );
      return 0;
    }
    const simulated = await simulateTown(deps, run);
    bar.done();
    const { worldId } = simulated;
    // The paper's way beside the text matching: interview every agent, the judge reads answers.
    if (flags.interview) {
      io.err("Interviewing the agents for diffusion, density and attendance…\n");
    }
    const summary = !flags.interview ? simulated.summary : {
      ...simulated.summary,
      byInterview: await townByInterview({ ...deps, judge: services.app.judge }, worldId, {
        catalog: services.towns,
        template: flags.template,
        endTime: simulated.summary.endTime,
      }),
    };
    if (flags.save !== undefined) {
      const open = io.openWrite ??
        (async (path: string) =>
          (await Deno.open(path, { write: true, create: true, truncate: true })).writable);
      const lines = await writeLines(
        exportWorld(deps, worldId, { events: true }),
        await open(flags.save),
      );
      io.err(
        `Saved world "${worldId}" to ${flags.save} (${lines} lines): load it with \`deno task world import ${flags.save}\` or POST /v1/worlds/import\n`,
      );
    }
    io.out(flags.json ? JSON.stringify(summary) : summaryText(summary));
    return 0;
  } catch (err) {
    if (!(err instanceof SimulacraError)) throw err;
    io.err(`\n${err.message}\n`);
    return 1;
  } finally {
    await deps.storage.close();
  }
}

/** `--processes P`: the towns split over P child processes of this command, then merged. */
async function simulateInProcesses(
  flags: SimulateFlags & { towns: number },
  io: SimulateIo,
): Promise<number> {
  const shards = shardsOf(flags.towns, flags.processes);
  io.err(`Simulating ${flags.towns} copies of ${flags.template} in ${shards.length} processes\n`);
  const started = performance.now();
  let runs: ShardRun[];
  try {
    runs = await runShards(shards, {
      args: (shard) => [
        ...["run", "-A", "cli/simulate.ts", "--json", "--template", flags.template],
        ...["--hours", String(flags.hours), "--concurrency", String(flags.concurrency)],
        ...["--minutes-per-tick", String(flags.minutesPerTick)],
        ...(flags.seed === undefined ? [] : ["--seed", String(flags.seed)]),
        ...["--towns", String(shard.towns), "--first-town", String(shard.firstTown)],
      ],
      err: io.err,
    });
  } catch (err) {
    if (!(err instanceof Error)) throw err;
    io.err(`${err.message}\n`);
    return 1;
  }
  const merged = mergeRuns(runs, (performance.now() - started) / 1000);
  const peaks = runs.map((r) => r.peakRssMb);
  io.out(
    flags.json
      ? JSON.stringify({ ...merged, peakRssMb: peaks.reduce((a, b) => a + b, 0), processes: peaks })
      : townsText(merged, peaks),
  );
  return 0;
}

function modelLine(deps: Deps): string {
  const info = deps.model.info;
  return info.mode === "offline"
    ? "offline (rule-based stand-in, no API key; set OPENAI_API_KEY or OPENAI_BASE_URL for a real model)"
    : `${info.main} (fast: ${info.fast})`;
}

/**
 * A single progress line on stderr. On a terminal it redraws in place (at most every 100 ms);
 * otherwise it prints a line each game hour, so logs stay readable. It samples the process's
 * resident memory at every update, for the peak a run of several towns reports.
 */
function progressBar(io: SimulateIo, started: number) {
  let drawn = 0;
  let lastHour = -1;
  let last: SimulationProgress | null = null;
  let peakRss = 0;
  const line = (p: SimulationProgress) => progressLine(p, (performance.now() - started) / 1000);
  return {
    peakRssMb: () => Math.round(peakRss / 2 ** 20),
    update(p: SimulationProgress) {
      last = p;
      peakRss = Math.max(peakRss, Deno.memoryUsage().rss);
      const finished = p.minutesDone >= p.minutesTotal;
      if (io.errIsTerminal) {
        const t = performance.now();
        if (t - drawn < 100 && !finished) return;
        drawn = t;
        io.err(`\r\x1b[2K${line(p)}`);
      } else {
        const hour = Math.floor(p.minutesDone / 60);
        if (hour === lastHour && !finished) return;
        lastHour = hour;
        io.err(`${line(p)}\n`);
      }
    },
    done() {
      if (io.errIsTerminal && last) io.err(`\r\x1b[2K${line(last)}\n`);
    },
  };
}

if (import.meta.main) {
  const encoder = new TextEncoder();
  const code = await simulateCommand(Deno.args, Deno.env.toObject(), {
    // deno-lint-ignore no-console
    out: (line) => console.log(line),
    err: (text) => {
      const bytes = encoder.encode(text);
      for (let at = 0; at < bytes.length;) at += Deno.stderr.writeSync(bytes.subarray(at));
    },
    errIsTerminal: Deno.stderr.isTerminal(),
  });
  Deno.exit(code);
}
