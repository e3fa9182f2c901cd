/**
 * @module Measures `POST …/retrieve` (k 10) through the real server, as a user sees it:
 * `deno run -A tests/bench/http_retrieve.ts [memories] [requests]` (default 2,000 memories, 1,000
 * requests). Fills an embedded store in a temporary data directory (one agent, 384-dimension
 * local-embedder vectors, ~70-character observations), starts `main.ts` on a free port in a
 * child process over it (the defaults of `deno task start`: offline model, gzip, the KV tick
 * queue), warms up with 200 requests, then sends the requests one after another and prints the
 * client's p50/p95 and the server's own time (`Server-Timing: app;dur=…`) p50/p95.
 */
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { createAgent } from "../../src/app/lifecycle/create_agent.ts";
import { createWorld } from "../../src/app/world/world_store.ts";
import { CreateAgentInput } from "../../src/domain/agent/agent.ts";
import { AgentId, WorldId } from "../../src/domain/ids.ts";
import { CreateWorldInput } from "../../src/domain/world/world.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { benchObservations, storeEmbedded } from "../_helpers/stored_memories.ts";
import { freePort, waitForHealth } from "../_helpers/main_process.ts";

const MEMORIES = Number(Deno.args[0] ?? 2_000);
const REQUESTS = Number(Deno.args[1] ?? 1000);
/** Requests first sent and not timed: the server's code is compiled hot by then. */
const WARM_UP = 200;
const worldId = WorldId.parse("bench");
const agentId = AgentId.parse("ana");
const QUERIES = [
  "Who was at the library?",
  "What did Ana buy at the pharmacy?",
  "flowers at Hobbs Cafe",
  "a conversation with Sam in the park",
];

/** Writes the world, the agent and its memories straight to the store the server will open. */
async function fill(dataDir: string): Promise<void> {
  const storage = await openKvStorage({ path: `${dataDir}/simulacra.kv`, dimensions: 384 });
  const deps: Deps = {
    storage,
    model: new OfflineLanguageModel({}),
    embedder: new LocalEmbedder({ dimensions: 384 }),
    ids: new RandomIdSource(),
    sleep: abortableSleep,
  };
  try {
    await createWorld(
      deps,
      CreateWorldInput.parse({ id: worldId, name: "Bench", startTime: "2023-02-13T07:00:00" }),
    );
    await createAgent(
      deps,
      worldId,
      CreateAgentInput.parse({ id: agentId, name: "Ana", description: "Lives in town" }),
    );
    for (let b = 0; b < MEMORIES; b += 1000) {
      const range = { from: b, to: Math.min(MEMORIES, b + 1000) };
      const records = benchObservations({ worldId, agentId }, range, {
        subject: "Ana",
        idDigits: 7,
      });
      await storeEmbedded(deps, { worldId, agentId }, records);
    }
  } finally {
    await storage.close();
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** The `app` entry of a Server-Timing header, in ms; NaN when absent. */
function serverMs(header: string | null): number {
  const match = header?.match(/(?:^|,)\s*app;dur=([\d.]+)/);
  return match ? Number(match[1]) : NaN;
}

const dataDir = await Deno.makeTempDir({ prefix: "simulacra-http-retrieve-" });
const filling = performance.now();
await fill(dataDir);
const filled = ((performance.now() - filling) / 1000).toFixed(1);
const port = freePort();
const url = `http://127.0.0.1:${port}`;
// BENCH_ROOT: another checkout's directory, to time its server on the same store (before/after).
const root = Deno.env.get("BENCH_ROOT") ?? new URL("../../", import.meta.url).pathname;
const server = new Deno.Command(Deno.execPath(), {
  // BENCH_SERVER_FLAGS: extra `deno run` flags for the server, e.g. `--cpu-prof`.
  args: [
    "run",
    "-A",
    ...(Deno.env.get("BENCH_SERVER_FLAGS")?.split(" ") ?? []),
    `${root}/main.ts`,
  ],
  cwd: root,
  env: { PORT: String(port), SIMULACRA_DATA_DIR: dataDir },
  clearEnv: true,
  stdout: "null",
  stderr: "inherit",
}).spawn();
try {
  await waitForHealth(url);
  const client: number[] = [];
  const serverTimes: number[] = [];
  for (let i = 0; i < REQUESTS + WARM_UP; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/v1/worlds/${worldId}/agents/${agentId}/retrieve`, {
      method: "POST",
      headers: { "content-type": "application/json", "accept-encoding": "gzip" },
      body: JSON.stringify({ query: QUERIES[i % QUERIES.length], k: 10 }),
    });
    const body = await res.json();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(body)}`);
    if (i < WARM_UP) continue;
    client.push(ms);
    serverTimes.push(serverMs(res.headers.get("server-timing")));
  }
  if (Deno.env.get("BENCH_WINDOWS")) {
    for (let w = 0; w < client.length; w += 100) {
      // deno-lint-ignore no-console
      console.log(`requests ${w}-${w + 99}: p50 ${percentile(client.slice(w, w + 100), 0.5)}`);
    }
  }
  const f = (n: number) => Number.isNaN(n) ? "n/a" : n.toFixed(2);
  // deno-lint-ignore no-console
  console.log(
    `${root}: ${MEMORIES} memories (filled in ${filled} s), ${REQUESTS} retrieves k 10: client p50 ${
      f(percentile(client, 0.5))
    } ms, p95 ${f(percentile(client, 0.95))} ms; server p50 ${
      f(percentile(serverTimes, 0.5))
    } ms, p95 ${f(percentile(serverTimes, 0.95))} ms`,
  );
} finally {
  server.kill("SIGTERM");
  await server.status;
  // BENCH_KEEP_DIR=1 keeps the filled store, e.g. to profile the server on it.
  // deno-lint-ignore no-console
  if (Deno.env.get("BENCH_KEEP_DIR")) console.log(`kept ${dataDir}`);
  else await Deno.remove(dataDir, { recursive: true });
}
