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
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { openUpstashStorage } from "../../lib/upstash/upstash_storage.ts";
import { exportWorld } from "../../src/app/archive/export_world.ts";
import { importWorld } from "../../src/app/archive/import_world.ts";
import { createAgent } from "../../src/app/lifecycle/create_agent.ts";
import { CreateAgentInput } from "../../src/domain/agent/agent.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { AgentId, WorldId } from "../../src/domain/ids.ts";
import type { Storage } from "../../src/ports/storage.ts";
import { CreateWorldInput } from "../../src/domain/world/world.ts";
import { createWorld } from "../../src/app/world/world_store.ts";
import { benchObservations, storeEmbedded } from "../_helpers/stored_memories.ts";

const AGENTS = Number(Deno.args[0] ?? 25);
const MEMORIES = Number(Deno.args[1] ?? 100_000);
const embedder = new LocalEmbedder({ dimensions: 384 });
const worldId = WorldId.parse("bench");

function depsOn(storage: Storage): Deps {
  return {
    storage,
    model: new OfflineLanguageModel({}),
    embedder,
    ids: new RandomIdSource(),
    sleep: abortableSleep,
  };
}

async function fill(deps: Deps): Promise<void> {
  await createWorld(
    deps,
    CreateWorldInput.parse({ id: worldId, name: "Bench", startTime: "2023-02-13T07:00:00" }),
  );
  const perAgent = Math.ceil(MEMORIES / AGENTS);
  for (let a = 0; a < AGENTS; a++) {
    const agentId = AgentId.parse(`agent${a}`);
    await createAgent(
      deps,
      worldId,
      CreateAgentInput.parse({ id: agentId, name: `Agent ${a}`, description: "Lives in town" }),
    );
    for (let b = 0; b < perAgent; b += 500) {
      const scope = { worldId, agentId };
      const range = { from: b, to: Math.min(perAgent, b + 500) };
      const records = benchObservations(scope, range, { subject: `Agent ${a}`, idDigits: 6 });
      await storeEmbedded(deps, { worldId, agentId }, records);
    }
  }
}

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
  const source = depsOn(await openKvStorage({ path: `${dir}/source.kv`, dimensions: 384 }));
  await measure(`fill ${AGENTS} agents × ${MEMORIES / AGENTS} memories`, () => fill(source));
  const file = `${dir}/world.ndjson`;
  await measure("export, embedded → file", () => exportTo(source, file));
  const size = (await Deno.stat(file)).size;
  // deno-lint-ignore no-console
  console.log(
    `file: ${(size / 1024 / 1024).toFixed(1)} MB (${Math.round(size / MEMORIES)} bytes per memory)`,
  );
  await source.storage.close();

  const copy = depsOn(await openKvStorage({ path: `${dir}/copy.kv`, dimensions: 384 }));
  await measure("import, file → embedded", () => importFrom(copy, file));
  await copy.storage.close();

  const hosted = depsOn(
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
  const home = depsOn(await openKvStorage({ path: `${dir}/home.kv`, dimensions: 384 }));
  await measure("import, hosted export → embedded", () => importFrom(home, back));
  await home.storage.close();
  await hosted.storage.close();
} finally {
  await gateway.close();
  await vector.close();
  await redis.close();
  await Deno.remove(dir, { recursive: true });
}
