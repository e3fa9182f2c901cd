/**
 * @module Measures world export and import for BENCHMARKS.md:
 * `deno run -A tests/bench/world_archive.ts [agents] [memories]` (default 25 agents, 100,000
 * memories in all, 384-dimension vectors). Fills an embedded store directly, then times:
 * export to a file, import into a fresh embedded store, import into the hosted backend (local
 * redis-server behind the Upstash gateway, plus the local vector server) and export back from
 * it. Reports wall time, the file size and the process's peak RSS above its level before each
 * phase (sampled every 20 ms). The hosted phases run against servers on this machine: real
 * Upstash adds network round trips (about 400 Redis scripts and 200 vector upserts here).
 */
import { startRedisServer } from "../../dev/redis_server.ts";
import { startUpstashRedisGateway } from "../../dev/upstash_redis_gateway.ts";
import { startUpstashVectorServer } from "../../dev/upstash_vector_server.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { ndjsonLines, writeLines } from "../../lib/ndjson_lines.ts";
import { openUpstashStorage } from "../../lib/upstash/upstash_storage.ts";
import { exportWorld } from "../../src/app/archive/export_world.ts";
import { importWorld } from "../../src/app/archive/import_world.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { BENCH_WORLD, benchDeps, fillBenchWorld } from "../_helpers/bench_archive_world.ts";

const AGENTS = Number(Deno.args[0] ?? 25);
const MEMORIES = Number(Deno.args[1] ?? 100_000);
const worldId = BENCH_WORLD;

async function measure<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const before = Deno.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, Deno.memoryUsage().rss)), 20);
  const started = performance.now();
  try {
    return await fn();
  } finally {
    clearInterval(timer);
    peak = Math.max(peak, Deno.memoryUsage().rss);
    const s = ((performance.now() - started) / 1000).toFixed(1);
    const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
    // deno-lint-ignore no-console
    console.log(`${label}: ${s} s, peak RSS +${mb(peak - before)} MB (${mb(peak)} MB)`);
  }
}

async function exportTo(deps: Deps, path: string): Promise<void> {
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  await writeLines(exportWorld(deps, worldId), file.writable);
}

async function importFrom(deps: Deps, path: string): Promise<void> {
  const file = await Deno.open(path, { read: true });
  const result = await importWorld(deps, ndjsonLines(file.readable));
  if (result.counts.memories < MEMORIES) throw new Error(`imported ${result.counts.memories}`);
}

const dir = await Deno.makeTempDir({ prefix: "simulacra-archive-bench-" });
const redis = await startRedisServer();
const gateway = await startUpstashRedisGateway({ redisUrl: redis.url, token: "bench-redis" });
const vector = await startUpstashVectorServer({ token: "bench-vector", dimensions: 384 });
try {
  const source = benchDeps(await openKvStorage({ path: `${dir}/source.kv`, dimensions: 384 }));
  await measure(
    `fill ${AGENTS} agents × ${MEMORIES / AGENTS} memories`,
    () => fillBenchWorld(source, { agents: AGENTS, memories: MEMORIES, batch: 500, idDigits: 6 }),
  );
  const file = `${dir}/world.ndjson`;
  await measure("export, embedded → file", () => exportTo(source, file));
  const size = (await Deno.stat(file)).size;
  // deno-lint-ignore no-console
  console.log(
    `file: ${(size / 1024 / 1024).toFixed(1)} MB (${Math.round(size / MEMORIES)} bytes per memory)`,
  );
  await source.storage.close();

  const copy = benchDeps(await openKvStorage({ path: `${dir}/copy.kv`, dimensions: 384 }));
  await measure("import, file → embedded", () => importFrom(copy, file));
  await copy.storage.close();

  const hosted = benchDeps(
    await openUpstashStorage({
      redisUrl: gateway.url,
      redisToken: "bench-redis",
      vectorUrl: vector.url,
      vectorToken: "bench-vector",
      keyPrefix: "bench",
    }),
  );
  await measure("import, file → hosted (local servers)", () => importFrom(hosted, file));
  const back = `${dir}/back.ndjson`;
  await measure("export, hosted → file", () => exportTo(hosted, back));
  const home = benchDeps(await openKvStorage({ path: `${dir}/home.kv`, dimensions: 384 }));
  await measure("import, hosted export → embedded", () => importFrom(home, back));
  await home.storage.close();
  await hosted.storage.close();
} finally {
  await gateway.close();
  await vector.close();
  await redis.close();
  await Deno.remove(dir, { recursive: true });
}
