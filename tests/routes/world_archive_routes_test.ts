/**
 * Export and import through the HTTP API: a world moves embedded → hosted → embedded with the
 * same agents, memories, plans, clock, usage and retrieval results; a fork diverges without
 * touching the original; corrupt, truncated, other-version and other-embedder files are refused
 * with nothing written.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { createApp } from "../../routes/app.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { AgentId, WorldId } from "../../src/domain/ids.ts";
import { type Backend, startBackends } from "../_helpers/backends.ts";
import { call, importArchive } from "../_helpers/http_call.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();
const embedded = backends.find((b) => b.name === "embedded")!;
const hosted = backends.find((b) => b.name === "upstash");

type App = ReturnType<typeof createApp>;

async function exportText(app: App, world: string, events = true): Promise<string> {
  const res = await app.request(`/v1/worlds/${world}/export${events ? "?events=true" : ""}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/x-ndjson");
  return await res.text();
}

const importText = (app: App, text: string, query = "") => importArchive(app, text, query);

async function open(backend: Backend): Promise<{ app: App; deps: Deps & AsyncDisposable }> {
  const storage = await backend.open();
  // Usage goes to the ledger, as in the service, so the export carries real totals.
  const model = new OfflineLanguageModel({ onUsage: (r) => storage.usage.add(r) });
  const deps = await makeTestDeps({ storage, model });
  return { app: createApp(deps, { logger: silentLogger }), deps };
}

/** A small lived-in world: two agents, observations, a reflection's worth of memories, plans. */
async function buildTown(app: App): Promise<void> {
  const w = await call(app, "POST", "/v1/worlds", {
    id: "town",
    name: "Smallville",
    startTime: "2023-02-13T07:00:00",
  });
  assert.equal(w.status, 201, JSON.stringify(w.body));
  for (
    const [id, name, description] of [
      ["isabella", "Isabella Rodriguez", "Isabella runs Hobbs Cafe; she is planning a party"],
      ["klaus", "Klaus Mueller", "Klaus is a student; he is writing a paper on gentrification"],
    ]
  ) {
    const a = await call(app, "POST", "/v1/worlds/town/agents", { id, name, description });
    assert.equal(a.status, 201, JSON.stringify(a.body));
  }
  const texts = [
    "Sam Moore says he is running for mayor",
    "The cafe is out of croissants",
    "Maria is studying chemistry at the library",
    "A fire broke out at the bakery",
    "Klaus is reading about urban housing",
  ];
  for (const agent of ["isabella", "klaus"]) {
    const p = await call(app, "POST", `/v1/worlds/town/agents/${agent}/perceive`, {
      observations: texts.map((text, i) => ({ text, eventId: `e${i}` })),
    });
    assert.equal(p.status, 200, JSON.stringify(p.body));
    const plan = await call(app, "POST", `/v1/worlds/town/agents/${agent}/plan`, {});
    assert.equal(plan.status, 200, JSON.stringify(plan.body));
  }
  const tick = await call(app, "POST", "/v1/worlds/town/tick", { minutes: 30 });
  assert.equal(tick.status, 200, JSON.stringify(tick.body));
}

/** What must be the same on both sides of a move. */
async function snapshot(app: App, world: string) {
  const w = await call(app, "GET", `/v1/worlds/${world}`);
  const agents = await call(app, "GET", `/v1/worlds/${world}/agents`);
  const out: Record<string, unknown> = { world: { ...w.body, id: undefined } };
  out.agents = agents.body.agents.map((a: Record<string, unknown>) => ({
    ...a,
    worldId: undefined,
  }));
  for (const { id } of agents.body.agents) {
    const memories = await call(app, "GET", `/v1/worlds/${world}/agents/${id}/memories?limit=500`);
    out[`${id}.memories`] = memories.body.memories.map((m: Record<string, unknown>) => ({
      ...m,
      worldId: undefined,
    }));
    const plan = await call(app, "GET", `/v1/worlds/${world}/agents/${id}/plan?date=2023-02-13`);
    out[`${id}.plan`] = { ...plan.body, worldId: undefined };
  }
  // The day's budget spend is the serving store's real-day meter, not world data: an imported
  // world starts a fresh meter (its usage totals carry over).
  const usage = (await call(app, "GET", `/v1/worlds/${world}/usage`)).body;
  out.usage = { ...usage, budget: undefined };
  return out;
}

/** Gives a lived-in agent's memories upkeep: one archived, one merged into another, one superseded. */
async function upkeep(deps: Deps, agent: string): Promise<void> {
  const scope = { worldId: WorldId.parse("town"), agentId: AgentId.parse(agent) };
  const all = await deps.storage.memories.all(scope);
  const [a, b, c, d] = all.filter((m) => m.kind === "observation");
  const revised = await deps.storage.memories.revise(scope, [
    { id: a.id, archivedAt: "2023-02-13T07:20:00" as typeof a.createdAt },
    { id: b.id, mergedInto: c.id },
    { id: c.id, count: 2, firstAt: b.createdAt, lastAt: c.createdAt, evidence: [b.id] },
    { id: d.id, supersededBy: c.id, invalidAt: c.createdAt },
  ]);
  assert.equal(revised, 4);
}

/** The memory lines of an export, as JSON values. */
function memoryLines(text: string): unknown[] {
  return text.trimEnd().split("\n").map((l) => JSON.parse(l)).filter((l) => l.type === "memory");
}

async function retrievals(app: App, world: string) {
  const out: unknown[] = [];
  for (const query of ["Who is running for mayor?", "fire", "What does Klaus study?"]) {
    const r = await call(app, "POST", `/v1/worlds/${world}/agents/klaus/retrieve`, { query, k: 4 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    out.push(
      r.body.memories.map((x: { id: string; score: number }) => [
        x.id,
        Math.round(x.score * 1e4) / 1e4,
      ]),
    );
  }
  return out;
}

Deno.test({
  name: "export/import moves a world embedded → hosted → embedded unchanged",
  ignore: hosted === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const source = await open(embedded);
    const middle = await open(hosted!);
    const back = await open(embedded);
    try {
      await buildTown(source.app);
      await upkeep(source.deps, "klaus");
      const original = await snapshot(source.app, "town");
      assert.ok((original["klaus.memories"] as unknown[]).length >= 6, "seeds and observations");
      assert.ok(JSON.stringify(original["klaus.plan"]).length > 200, "a day plan");
      assert.ok((original.usage as { total: { calls: number } }).total.calls > 0);
      const first = await exportText(source.app, "town");
      const lines = first.trimEnd().split("\n").map((l) => JSON.parse(l));
      assert.equal(lines[0].type, "header");
      assert.equal(lines[0].format, "simulacra.world");
      assert.equal(lines[0].version, 1);
      assert.equal(lines[0].counts.agents, 2);
      assert.ok(lines.some((l) => l.type === "event"), "events=true carries the event log");
      assert.deepEqual(lines.at(-1).type, "end");

      const moved = await importText(middle.app, first);
      assert.equal(moved.status, 201, JSON.stringify(moved.body));
      assert.deepEqual(moved.body.counts, lines.at(-1).counts);
      assert.deepEqual(await snapshot(middle.app, "town"), original);

      const second = await exportText(middle.app, "town");
      const home = await importText(back.app, second);
      assert.equal(home.status, 201, JSON.stringify(home.body));
      assert.deepEqual(await snapshot(back.app, "town"), original);
      // Memories out of the live set and their upkeep fields make the round trip.
      const kept = memoryLines(first);
      assert.ok(kept.some((l) => JSON.stringify(l).includes('"mergedInto"')));
      assert.ok(kept.some((l) => JSON.stringify(l).includes('"archivedAt"')));
      assert.deepEqual(memoryLines(second), kept);
      assert.deepEqual(memoryLines(await exportText(back.app, "town")), kept);

      const expected = await retrievals(source.app, "town");
      assert.deepEqual(await retrievals(middle.app, "town"), expected);
      assert.deepEqual(await retrievals(back.app, "town"), expected);

      const events = await call(back.app, "GET", "/v1/worlds/town/events?limit=1000");
      const sourceEvents = await call(source.app, "GET", "/v1/worlds/town/events?limit=1000");
      assert.deepEqual(events.body, sourceEvents.body);

      // A perceive of a known event finds the imported memory instead of storing it again.
      const again = await call(back.app, "POST", "/v1/worlds/town/agents/klaus/perceive", {
        observations: [{ text: "A fire broke out at the bakery", eventId: "e3" }],
      });
      assert.deepEqual(again.body.outcomes, ["existing"]);
    } finally {
      await source.deps[Symbol.asyncDispose]();
      await middle.deps[Symbol.asyncDispose]();
      await back.deps[Symbol.asyncDispose]();
    }
  },
});

Deno.test("POST /v1/worlds/import?id= forks a world that then diverges on its own", async () => {
  const { app, deps } = await open(embedded);
  try {
    await buildTown(app);
    const before = await snapshot(app, "town");
    const text = await exportText(app, "town", false);
    const fork = await importText(app, text, "?id=town-b");
    assert.equal(fork.status, 201, JSON.stringify(fork.body));
    assert.equal(fork.body.world.id, "town-b");
    const p = await call(app, "POST", "/v1/worlds/town-b/agents/klaus/perceive", {
      observations: [{ text: "Klaus decides to move to Berlin" }],
    });
    assert.equal(p.status, 200);
    assert.equal(p.body.memories[0].worldId, "town-b");
    await call(app, "POST", "/v1/worlds/town-b/tick", { minutes: 60 });
    assert.deepEqual(await snapshot(app, "town"), before, "The original is untouched");
    const forked = await snapshot(app, "town-b");
    assert.notDeepEqual(forked["klaus.memories"], before["klaus.memories"]);
    const scope = { worldId: WorldId.parse("town-b"), agentId: AgentId.parse("klaus") };
    for (const m of await deps.storage.memories.all(scope)) assert.equal(m.worldId, "town-b");

    const again = await importText(app, text, "?id=town-b");
    assert.equal(again.status, 409, JSON.stringify(again.body));
    const same = await importText(app, text);
    assert.equal(same.status, 409, "The archived id exists here");
  } finally {
    await deps[Symbol.asyncDispose]();
  }
});

Deno.test("POST /v1/worlds/import refuses broken files and writes nothing", async (t) => {
  const { app, deps } = await open(embedded);
  try {
    await buildTown(app);
    const lines = (await exportText(app, "town")).trimEnd().split("\n");
    const memoryLine = lines.findIndex((l) => l.includes('"type":"memory"'));
    assert.ok(memoryLine > 2);

    const refused = async (text: string, status: number, query = "?id=broken") => {
      const res = await importText(app, text, query);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal((await call(app, "GET", "/v1/worlds/broken")).status, 404);
      const world = WorldId.parse("broken");
      assert.deepEqual(await deps.storage.documents.list("agents", world), [], "no agent left");
      for (const agent of ["isabella", "klaus"]) {
        const scope = { worldId: world, agentId: AgentId.parse(agent) };
        assert.equal(await deps.storage.memories.count(scope), 0, "no memory left");
        assert.deepEqual(
          await deps.storage.vectors.query(scope, new Float32Array(384).fill(1), 5),
          [],
        );
      }
      return res.body;
    };

    await t.step("a corrupt line is a 400 naming it", async () => {
      const corrupt = [...lines];
      corrupt[memoryLine + 1] = corrupt[memoryLine + 1].slice(0, 40);
      const body = await refused(corrupt.join("\n"), 400);
      assert.equal(body.error.details.line, memoryLine + 2);
      assert.match(body.error.message, new RegExp(`line ${memoryLine + 2}`));
    });
    await t.step("a truncated file is a 400 naming the missing line", async () => {
      const cut = lines.slice(0, lines.length - 3);
      const body = await refused(cut.join("\n"), 400);
      assert.equal(body.error.details.line, cut.length + 1);
      assert.match(body.error.message, /truncated/);
    });
    await t.step("a file cut inside a line is refused", async () => {
      const text = lines.join("\n");
      await refused(text.slice(0, Math.floor(text.length * 0.6)), 400);
    });
    await t.step("another format version is a 400 on line 1", async () => {
      const header = { ...JSON.parse(lines[0]), version: 99 };
      const body = await refused([JSON.stringify(header), ...lines.slice(1)].join("\n"), 400);
      assert.equal(body.error.details.line, 1);
      assert.match(body.error.message, /version 99/);
    });
    await t.step("a memory of an agent not in the file is refused", async () => {
      const stray = JSON.parse(lines[memoryLine]);
      stray.memory.agentId = "nobody";
      const edited = [...lines];
      edited[memoryLine] = JSON.stringify(stray);
      await refused(edited.join("\n"), 400);
    });
    await t.step("another embedder is a 422 unless reembed=true", async () => {
      const header = JSON.parse(lines[0]);
      header.embedder = { model: "text-embedding-3-small", dimensions: 1536 };
      const other = [JSON.stringify(header), ...lines.slice(1)].map((line) => {
        const l = JSON.parse(line);
        if (l.type !== "memory") return line;
        return JSON.stringify({ ...l, embedding: btoa("\0".repeat(1536 * 4)) });
      }).join("\n");
      const body = await refused(other, 422);
      assert.match(body.error.message, /reembed=true/);
      const redone = await importText(app, other, "?id=reembedded&reembed=true");
      assert.equal(redone.status, 201, JSON.stringify(redone.body));
      assert.equal(redone.body.reembedded, redone.body.counts.memories);
      const r = await call(app, "POST", "/v1/worlds/reembedded/agents/klaus/retrieve", {
        query: "fire at the bakery",
        k: 1,
      });
      assert.match(r.body.memories[0].description, /fire/);
    });
  } finally {
    await deps[Symbol.asyncDispose]();
  }
});

Deno.test({
  name: "world archive tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
