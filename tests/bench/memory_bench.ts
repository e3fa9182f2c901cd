/**
 * @module Benchmarks the memory stream's hot paths on the embedded backend, in process, with
 * the offline model and the local embedder: retrieve at 1k / 10k / 100k memories in one agent
 * (query embedding, exact scoring of every memory, top-k, and marking results accessed), and
 * perceive throughput for batches of 1 and 100 observations.
 *
 * The `rank` group times `rankMemories()` alone (the exhaustive scan and exact ranking, no
 * embedding or touch).
 *
 * Run with `deno bench -A tests/bench/memory_bench.ts`. Goals: retrieve p50 ≤ 2 ms at 10k and
 * ≤ 20 ms at 100k. `deno bench` reports avg, p75 and p99 but no median: with `BENCH_P50=1` in the
 * environment the module first times 200 retrievals per size and prints their p50.
 */
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import { createAgent } from "../../src/app/lifecycle/create_agent.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { AgentId, type AgentScope, MemoryId, WorldId } from "../../src/domain/ids.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import { perceive } from "../../src/app/perceive.ts";
import { rankMemories, retrieve } from "../../src/app/memory/retrieval.ts";
import { resolveWeights } from "../../src/domain/world/retrieval_weights.ts";
import { fromGameMinutes, gameMinutes } from "../../src/domain/time/game_time.ts";
import { WorldSettings } from "../../src/domain/world/world.ts";
import { createWorld } from "../../src/app/world/world_store.ts";
import { storeEmbedded, TOWN_SUBJECTS } from "../_helpers/stored_memories.ts";

const subjects = TOWN_SUBJECTS.slice(0, 10);
const verbs = [
  "is talking about",
  "is reading about",
  "is worried about",
  "is planning",
  "is painting",
];
const objects = [
  "the mayoral election",
  "the Valentine's party",
  "gentrification",
  "the pharmacy",
  "a new cafe menu",
  "the college exam",
  "a broken stove",
  "the park garden",
  "a music recital",
  "rising rent",
];

const embedder = new LocalEmbedder({ dimensions: 384 });
const deps: Deps = {
  storage: await openKvStorage({ dimensions: 384 }),
  model: new OfflineLanguageModel({}),
  embedder,
  ids: new RandomIdSource(),
  sleep: abortableSleep,
};
const worldId = WorldId.parse("bench");
await createWorld(deps, {
  id: worldId,
  name: "Bench",
  startTime: "2023-02-13T07:00:00",
  minutesPerTick: 10,
  settings: WorldSettings.parse({
    reflectionThreshold: 150,
    retentionMinutes: 30,
    recencyDecay: 0.995,
    retrievalWeights: "paper",
    // perceive() is measured alone: automatic reflection has its own cost and benchmark.
    autoReflect: false,
  }),
});

async function agentWith(count: number): Promise<AgentScope> {
  const agentId = AgentId.parse(`a${count}`);
  await createAgent(deps, worldId, {
    id: agentId,
    name: `Agent ${count}`,
    description: "a bench agent",
  });
  const scope = { worldId, agentId };
  const start = gameMinutes("2023-01-01T00:00:00");
  for (let b = 0; b < count; b += 500) {
    const records: MemoryRecord[] = [];
    for (let i = b; i < Math.min(count, b + 500); i++) {
      const at = fromGameMinutes(start + i);
      records.push({
        id: MemoryId.parse(`m_${String(i).padStart(7, "0")}`),
        worldId,
        agentId,
        kind: "observation",
        description: `${subjects[i % 10]} ${verbs[(i >> 3) % 5]} ${objects[(i * 7) % 10]} (${i})`,
        createdAt: at,
        lastAccessedAt: at,
        importance: 1 + (i * 31) % 10,
        provenance: "witnessed",
      });
    }
    await storeEmbedded(deps, scope, records);
  }
  return scope;
}

const sizes = [1_000, 10_000, 100_000];
const scopes = new Map<number, AgentScope>();
for (const n of sizes) scopes.set(n, await agentWith(n));
const queries = [
  "who is running for mayor",
  "the party at the cafe",
  "rent is rising",
  "exam at the college",
];

const at = "2023-03-15T12:00:00";

function retrieveAt(n: number, q: number): Promise<unknown> {
  const scope = scopes.get(n)!;
  return retrieve(deps, { worldId: scope.worldId, agentId: scope.agentId }, {
    query: queries[q % queries.length],
    k: 10,
    at,
  });
}

if (Deno.env.get("BENCH_P50") === "1") {
  for (const n of sizes) {
    for (let q = 0; q < 20; q++) await retrieveAt(n, q); // warm up
    const times: number[] = [];
    for (let q = 0; q < 200; q++) {
      const start = performance.now();
      await retrieveAt(n, q);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    // deno-lint-ignore no-console
    console.log(
      `retrieve() over ${n.toLocaleString("en")} memories: p50 ${times[100].toFixed(2)} ms`,
    );
  }
}

for (const n of sizes) {
  let q = 0;
  Deno.bench({
    name: `retrieve() k=10 over ${n.toLocaleString("en")} memories (embedded, exact)`,
    group: "retrieve",
    async fn() {
      await retrieveAt(n, q++);
    },
  });
}

const queryVectors = (await embedder.embed(queries, { operation: "bench" })).vectors;
const paper = resolveWeights("paper");
for (const n of sizes) {
  let q = 0;
  Deno.bench({
    name: `rankMemories() k=10 over ${n.toLocaleString("en")} memories (scan and ranking only)`,
    group: "rank",
    async fn() {
      await rankMemories(deps, scopes.get(n)!, {
        query: queryVectors[q++ % queryVectors.length],
        at,
        weights: paper,
        decay: 0.995,
        k: 10,
      });
    },
  });
}

const perceiver = await agentWith(0);
let event = 0;
for (const batch of [1, 100]) {
  Deno.bench({
    name: `perceive() a batch of ${batch} new observations (offline model)`,
    group: "perceive",
    async fn() {
      const observations = Array.from({ length: batch }, () => {
        const i = event++;
        return {
          text: `${subjects[i % 10]} ${verbs[i % 5]} ${objects[(i * 3) % 10]} #${i}`,
          eventId: `e${i}`,
        };
      });
      await perceive(deps, perceiver, { observations });
    },
  });
}
