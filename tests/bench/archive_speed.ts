/**
 * @module Export and import against a plain JSON parse of the same file (issue 25):
 * `deno run -A tests/bench/archive_speed.ts [memories] [agents]` (default 20,000 memories, one
 * agent). Fills an embedded store directly (384-dimension local-embedder vectors, ~70-character
 * observations, each with an event id as a tick's perceptions have) and reopens it, then times,
 * each best of 3: export to a file (and the first export alone, which loads the agent's memories
 * and vectors from KV, as after a restart); `JSON.parse` of the file line by line (read the same
 * streaming way the import reads it); import into a fresh embedded store. Prints each time and
 * its ratio to the parse, and to Python's `json` doing the same (when `python3` is on the PATH),
 * then the process's CPU time of each (all threads, KV's included). With `BENCH_HOSTED=1` it
 * also imports the file into the hosted backend (local redis-server behind the Upstash gateway,
 * local vector server) and prints the Redis and vector requests per 1,000 memories.
 */
import process from "node:process";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { ndjsonLines, writeLines } from "../../lib/ndjson_lines.ts";
import { exportWorld } from "../../src/app/archive/export_world.ts";
import { importWorld } from "../../src/app/archive/import_world.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { BENCH_WORLD, benchDeps, fillBenchWorld } from "../_helpers/bench_archive_world.ts";
import { startMeteredUpstash } from "../_helpers/storage_meter.ts";

const MEMORIES = Number(Deno.args[0] ?? 20_000);
const AGENTS = Number(Deno.args[1] ?? 1);
const worldId = BENCH_WORLD;

/**
 * The best of `runs` timings of `fn`, in ms, the first one, and the process's CPU time (user
 * and system, all threads: Deno KV's included) of the least of them, in ms: on a shared machine
 * the CPU time moves less than the wall time.
 */
async function timed(
  runs: number,
  fn: (run: number) => Promise<void>,
): Promise<{ best: number; first: number; cpu: number }> {
  let fastest = Infinity, first = NaN, cpu = Infinity;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    await fn(run);
    const used = process.cpuUsage(cpuBefore);
    const ms = performance.now() - started;
    if (run === 0) first = ms;
    fastest = Math.min(fastest, ms);
    cpu = Math.min(cpu, (used.user + used.system) / 1000);
  }
  return { best: fastest, first, cpu };
}

async function parseLines(path: string): Promise<void> {
  const file = await Deno.open(path, { read: true });
  let n = 0;
  for await (const line of ndjsonLines(file.readable)) {
    if (JSON.parse(line) !== null) n++;
  }
  if (n < MEMORIES) throw new Error(`parsed ${n} lines`);
}

const PYTHON_PARSE = `
import json, sys, time
started = time.perf_counter()
with open(sys.argv[1]) as f:
    for line in f:
        json.loads(line)
print((time.perf_counter() - started) * 1000)
`;

/** Python's \`json\` parsing the file line by line, in ms (best of 3), or NaN without python3. */
async function pythonParseMs(path: string): Promise<number> {
  let fastest = NaN;
  for (let run = 0; run < 3; run++) {
    try {
      const { stdout, success } = await new Deno.Command("python3", {
        args: ["-c", PYTHON_PARSE, path],
        stderr: "null",
      }).output();
      if (!success) return NaN;
      const ms = Number(new TextDecoder().decode(stdout));
      fastest = Number.isNaN(fastest) ? ms : Math.min(fastest, ms);
    } catch {
      return NaN; // no python3
    }
  }
  return fastest;
}

async function importFrom(deps: Deps, path: string): Promise<void> {
  const file = await Deno.open(path, { read: true });
  const result = await importWorld(deps, ndjsonLines(file.readable));
  if (result.counts.memories < MEMORIES) throw new Error(`imported ${result.counts.memories}`);
}

const dir = await Deno.makeTempDir({ prefix: "simulacra-archive-speed-" });
// deno-lint-ignore no-console
const out = (text: string) => console.log(text);
try {
  const filled = benchDeps(await openKvStorage({ path: `${dir}/source.kv`, dimensions: 384 }));
  await fillBenchWorld(filled, {
    agents: AGENTS,
    memories: MEMORIES,
    batch: 1000,
    idDigits: 7,
    eventIds: true,
  });
  await filled.storage.close();
  const source = benchDeps(await openKvStorage({ path: `${dir}/source.kv`, dimensions: 384 }));
  const file = `${dir}/world.ndjson`;
  // The first export loads the agent from KV; the next ones read it from memory, as a server's
  // export of an agent in use does.
  const { best: exportMs, first: coldExportMs, cpu: exportCpu } = await timed(3, async () => {
    const handle = await Deno.open(file, { write: true, create: true, truncate: true });
    await writeLines(exportWorld(source, worldId), handle.writable);
  });
  await source.storage.close();
  const size = (await Deno.stat(file)).size;
  const { best: parseMs, cpu: parseCpu } = await timed(3, () => parseLines(file));
  const { best: importMs, cpu: importCpu } = await timed(3, async (run) => {
    const copy = benchDeps(await openKvStorage({ path: `${dir}/copy${run}.kv`, dimensions: 384 }));
    try {
      await importFrom(copy, file);
    } finally {
      await copy.storage.close();
    }
  });
  const pythonMs = await pythonParseMs(file);
  const ratio = (ms: number) =>
    `${(ms / parseMs).toFixed(1)}× JSON.parse, ${(ms / pythonMs).toFixed(1)}× Python's json`;
  out(
    `${MEMORIES} memories, ${AGENTS} agent(s), ${(size / 1024 / 1024).toFixed(1)} MB: ` +
      `JSON.parse line by line ${parseMs.toFixed(0)} ms, Python's json ${
        pythonMs.toFixed(0)
      } ms; export ${exportMs.toFixed(0)} ms (${ratio(exportMs)}), the first ${
        coldExportMs.toFixed(0)
      } ms (${ratio(coldExportMs)}); import ${importMs.toFixed(0)} ms (${ratio(importMs)})`,
  );
  const cpuRatio = (ms: number) => `${(ms / parseCpu).toFixed(1)}×`;
  out(
    `CPU time (least of 3): JSON.parse ${parseCpu.toFixed(0)} ms, export ${
      exportCpu.toFixed(0)
    } ms (${cpuRatio(exportCpu)}), import ${importCpu.toFixed(0)} ms (${cpuRatio(importCpu)})`,
  );

  if (Deno.env.get("BENCH_HOSTED")) {
    const metered = await startMeteredUpstash();
    try {
      const hosted = benchDeps(await metered.open());
      const { cost } = await metered.measure(() => importFrom(hosted, file));
      const per = (n: number) => (n / (MEMORIES / 1000)).toFixed(1);
      out(
        `hosted import: ${per(cost.redisRequests)} Redis requests (${
          per(cost.redisCommands)
        } commands) and ${per(cost.vectorRequests)} vector requests per 1,000 memories`,
      );
      await hosted.storage.close();
    } finally {
      await metered.close();
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
}
