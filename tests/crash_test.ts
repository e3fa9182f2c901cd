/**
 * Crash tests of the real server process (`main.ts`): killed with SIGKILL in the middle of a
 * burst of perceives (embedded backend), and with its redis-server killed and restarted under
 * it (hosted backend). Afterwards nothing acknowledged is missing, every stored memory is found
 * by its own text (so it has its vector), and a crashed holder's agent lock is free within
 * seconds.
 */
import assert from "node:assert/strict";
import { startRedisServer } from "../dev/redis_server.ts";
import { call, type RequestTarget } from "./_helpers/http_call.ts";
import { hasRedisServer, startLocalUpstash } from "./_helpers/backends.ts";
import { startFakeOpenAi } from "../dev/fake_openai_server.ts";
import { RESIDENTS, TOWN } from "./src/domain/_town_fixture.ts";
import { startMain } from "./_helpers/main_process.ts";

/** Requests over the network, to the spawned server. */
const network: RequestTarget = { request: (url, init) => fetch(url, init) };

function request(url: string, method: string, body?: unknown) {
  return call(network, method, url, body);
}

const AGENTS = ["ana", "ben"];

async function setUp(url: string): Promise<void> {
  const w = await request(`${url}/v1/worlds`, "POST", {
    id: "crash",
    name: "Crash",
    startTime: "2023-02-13T07:00:00",
  });
  assert.equal(w.status, 201, JSON.stringify(w.body));
  for (const id of AGENTS) {
    const a = await request(`${url}/v1/worlds/crash/agents`, "POST", {
      id,
      name: id,
      description: `${id} keeps a diary; ${id} likes long walks`,
    });
    assert.equal(a.status, 201, JSON.stringify(a.body));
  }
}

const WORDS = ["red", "green", "blue", "kettle", "garden", "violin", "ferry", "lantern", "quartz"];

/** A distinct observation text for batch `b`, item `i`. */
function text(agent: string, b: number, i: number): string {
  const pick = (n: number) => WORDS[n % WORDS.length];
  return `${agent} noticed a ${pick(b)} ${pick(b * 7 + i)} number ${b}-${i} near the ${
    pick(i * 3 + b)
  }`;
}

/**
 * Sends perceive batches, four at a time, until `stopAfter` batches were acknowledged (then
 * `crash` runs while the rest are in flight); returns what was acknowledged.
 */
async function burst(
  url: string,
  options: { batches: number; stopAfter: number; crash: () => Promise<void> },
): Promise<Map<string, { agent: string; text: string }>> {
  const acknowledged = new Map<string, { agent: string; text: string }>();
  let acks = 0;
  let crashed: Promise<void> | null = null;
  let next = 0;
  const worker = async () => {
    while (next < options.batches) {
      const b = next++;
      const agent = AGENTS[b % AGENTS.length];
      const observations = Array.from({ length: 8 }, (_, i) => ({
        text: text(agent, b, i),
        eventId: `b${b}-${i}`,
      }));
      try {
        const res = await request(`${url}/v1/worlds/crash/agents/${agent}/perceive`, "POST", {
          observations,
        });
        if (res.status !== 200) continue;
        res.body.memories.forEach((m: { id: string; description: string }) =>
          acknowledged.set(`${agent}/${m.id}`, { agent, text: m.description })
        );
        if (++acks === options.stopAfter) crashed = options.crash();
      } catch {
        // The server (or its store) died under this request: not acknowledged.
      }
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  await crashed;
  return acknowledged;
}

/** Every stored memory, per agent. */
async function storedMemories(url: string) {
  const out: { agent: string; id: string; description: string }[] = [];
  for (const agent of AGENTS) {
    let cursor = "";
    do {
      const page = await request(
        `${url}/v1/worlds/crash/agents/${agent}/memories?limit=500${
          cursor ? `&cursor=${cursor}` : ""
        }`,
        "GET",
      );
      assert.equal(page.status, 200, JSON.stringify(page.body));
      for (const m of page.body.memories) out.push({ agent, id: m.id, description: m.description });
      cursor = page.body.next ?? "";
    } while (cursor);
  }
  return out;
}

async function assertIntact(
  url: string,
  acknowledged: Map<string, { agent: string; text: string }>,
) {
  // A crashed holder's lock is gone within its 5 s TTL: the first perceive gets through.
  for (const agent of AGENTS) {
    const started = performance.now();
    const res = await request(`${url}/v1/worlds/crash/agents/${agent}/perceive`, "POST", {
      observations: [{ text: `${agent} is back after the crash`, eventId: "after-crash" }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(performance.now() - started < 8_000, "the crashed lock expired within seconds");
  }
  const stored = await storedMemories(url);
  const byKey = new Map(stored.map((m) => [`${m.agent}/${m.id}`, m]));
  for (const [key, { text }] of acknowledged) {
    assert.equal(byKey.get(key)?.description, text, `acknowledged memory ${key} is stored`);
  }
  const relevance = { recency: 0, importance: 0, relevance: 1 };
  for (const m of stored) {
    const res = await request(`${url}/v1/worlds/crash/agents/${m.agent}/retrieve`, "POST", {
      query: m.description,
      k: 5,
      weights: relevance,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    // Some texts differ only in numbers the local embedder folds together, so their cosines tie
    // at 1: the memory must be among the top few, not necessarily first.
    const own = res.body.memories.find((x: { id: string }) => x.id === m.id);
    assert.ok(own, `memory ${m.id} is found by its own text`);
    assert.ok(own.raw.cosine > 0.99, `memory ${m.id} has its vector (cosine ${own.raw.cosine})`);
  }
  return stored.length;
}

Deno.test({
  name: "main.ts killed with SIGKILL during a perceive burst loses nothing acknowledged (embedded)",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "simulacra-crash-" });
    const env = { SIMULACRA_DATA_DIR: dir };
    try {
      const first = await startMain(env);
      await setUp(first.url);
      const acknowledged = await burst(first.url, {
        batches: 60,
        stopAfter: 12,
        crash: first.kill,
      });
      await first.kill();
      assert.ok(acknowledged.size >= 12 * 8, `${acknowledged.size} acknowledged before the kill`);
      const second = await startMain(env);
      try {
        const stored = await assertIntact(second.url, acknowledged);
        assert.ok(stored >= acknowledged.size);
        const repair = await request(`${second.url}/v1/admin/repair`, "POST");
        assert.equal(repair.status, 200, JSON.stringify(repair.body));
        assert.equal(repair.body.reembedded, 0, "retrieval already repaired what it met");
        assert.equal(repair.body.orphanVectorsDeleted, 0);
      } finally {
        await second.kill();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "main.ts on the hosted backend keeps everything acknowledged when redis-server is killed and restarted during a burst",
  ignore: !(await hasRedisServer()),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "simulacra-redis-crash-" });
    let redis = await startRedisServer({ dir });
    const upstash = await startLocalUpstash("crash-token", redis.url);
    const server = await startMain(upstash.env);
    try {
      await setUp(server.url);
      const acknowledged = await burst(server.url, {
        batches: 60,
        stopAfter: 12,
        crash: async () => {
          await redis.crash();
          // Real time: a real redis-server stays down a moment before it restarts.
          await new Promise((r) => setTimeout(r, 300));
          redis = await startRedisServer({ dir, port: redis.port });
        },
      });
      assert.ok(acknowledged.size >= 12 * 8);
      const stored = await assertIntact(server.url, acknowledged);
      assert.ok(stored >= acknowledged.size);
      const repair = await request(`${server.url}/v1/admin/repair`, "POST");
      assert.equal(repair.status, 200, JSON.stringify(repair.body));
    } finally {
      await server.kill();
      await upstash.close();
      await redis.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "main.ts killed with SIGKILL mid-tick: the restarted server takes the tick over and closes it within 60 s, advancing the world once",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using fake = await startFakeOpenAi({ latencyMs: 300 });
    const dir = await Deno.makeTempDir();
    const env = {
      SIMULACRA_DATA_DIR: dir,
      OPENAI_BASE_URL: fake.url,
      SIMULACRA_MODEL: "fake-main",
    };
    let server = await startMain(env);
    try {
      const w = `${server.url}/v1/worlds/heal`;
      const made = await request(`${server.url}/v1/worlds`, "POST", {
        id: "heal",
        name: "Heal",
        startTime: "2023-02-13T06:50:00",
        // Only this test's ticks move it: the cron would tick it once k1 has closed.
        clock: { mode: "manual" },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      assert.equal((await request(`${w}/environment`, "PUT", TOWN)).status, 200);
      for (const resident of RESIDENTS) {
        const agent = await request(`${w}/agents`, "POST", resident);
        assert.equal(agent.status, 201, JSON.stringify(agent.body));
      }
      const started = await request(`${w}/tick?wait=false`, "POST", { tickId: "k1" });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      // Into the steps: day plans take several 300 ms model calls per agent.
      const before = fake.requests.length;
      // Polled in real time: the tick runs in a real server process the test cannot hook.
      for (let i = 0; i < 100 && fake.requests.length < before + 3; i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal((await request(`${w}/ticks/k1`, "GET")).body.status, "running");
      await server.kill();
      const killedAt = performance.now();

      server = await startMain(env);
      const w2 = `${server.url}/v1/worlds/heal`;
      let status = await request(`${w2}/ticks/k1`, "GET");
      // Polled in real time: healing is timed in a real process, as a client sees it.
      while (status.body.status !== "done" && performance.now() - killedAt < 70_000) {
        await new Promise((r) => setTimeout(r, 250));
        status = await request(`${w2}/ticks/k1`, "GET");
      }
      const healedInMs = performance.now() - killedAt;
      assert.equal(status.body.status, "done", JSON.stringify(status.body));
      assert.ok(healedInMs < 60_000, `taken over after ${Math.round(healedInMs)} ms`);
      assert.equal(status.body.result.steps.length, 3);
      const world = await request(w2, "GET");
      assert.equal(world.body.clock.now, "2023-02-13T07:00:00", "advanced once");
      const events = await request(`${w2}/events?limit=1000`, "GET");
      const ticks = events.body.events.filter((e: { type: string }) => e.type === "tick");
      assert.equal(ticks.length, 1);
      // The world is free again: the next tick runs through the queue and waits for its close.
      const next = await request(`${w2}/tick`, "POST", {});
      assert.equal(next.status, 200, JSON.stringify(next.body));
      assert.equal(next.body.clock.now, "2023-02-13T07:10:00");
    } finally {
      await server.kill();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
