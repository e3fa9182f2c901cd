/**
 * Memory upkeep over HTTP on both backends (README "Memory upkeep"): archiving under the world's
 * memoryBudget, listing archived memories and retrieving them back.
 */
import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgent } from "../_helpers/http_world.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import { AgentId, MemoryId, WorldId } from "../../src/domain/ids.ts";
import type { GameTime } from "../../src/domain/time/game_time.ts";

const { backends, close } = await startBackends();

interface Memory {
  id: string;
  kind: string;
  description: string;
  evidence?: string[];
  firstAt?: string;
  lastAt?: string;
  archivedAt?: string;
  mergedInto?: string;
  supersededBy?: string;
  count?: number;
}

const MIRA = {
  id: "mira",
  name: "Mira Stone",
  description: "Mira keeps the inn at the crossroads; she distrusts strangers",
};

/** Every memory of a listing (`?archived=true` or not), newest first. */
async function listed(
  app: Parameters<typeof call>[0],
  a: string,
  query = "",
): Promise<Memory[]> {
  const out: Memory[] = [];
  let cursor = "";
  do {
    const page = await call(app, "GET", `${a}/memories?limit=500${query}${cursor}`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    out.push(...page.body.memories);
    cursor = page.body.next ? `&cursor=${page.body.next}` : "";
  } while (cursor);
  return out;
}

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name:
      `[${backend.name}] perceive past memoryBudget archives the least retained; ?archived=true lists them, includeArchived retrieves them`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await worldWithAgent(app, MIRA, { memoryBudget: 10 });
        const texts = Array.from(
          { length: 12 },
          (_, i) => `a traveller number ${i} is sitting on the bench`,
        );
        texts.push("A dragon burned down the mill by the river");
        const p = await call(app, "POST", `${a}/perceive`, {
          observations: texts.map((text, i) => ({
            text,
            at: `2023-02-13T07:${String(10 + i).padStart(2, "0")}:00`,
          })),
        });
        assert.equal(p.status, 200, JSON.stringify(p.body));
        const live = await listed(app, a);
        const archived = await listed(app, a, "&archived=true");
        assert.equal(live.length + archived.length, 2 + texts.length, "nothing is lost");
        assert.equal(live.length, 9, "a tenth below the budget of 10");
        assert.ok(archived.every((m) => m.archivedAt !== undefined && m.kind === "observation"));
        assert.equal(live.filter((m) => m.kind === "seed").length, 2, "seeds stay live");
        assert.ok(
          live.some((m) => m.description.includes("dragon")),
          "the important memory stays live",
        );
        const oldest = archived.find((m) => m.description.includes("number 0 "));
        assert.ok(oldest, "the oldest routine sighting is archived");

        const query = { query: "traveller number 0 sitting on the bench", k: 20 };
        const plain = await call(app, "POST", `${a}/retrieve`, query);
        assert.equal(plain.status, 200, JSON.stringify(plain.body));
        assert.ok(plain.body.memories.every((m: Memory) => m.archivedAt === undefined));
        assert.equal(plain.body.memories.length, live.length);
        const back = await call(app, "POST", `${a}/retrieve`, { ...query, includeArchived: true });
        assert.equal(back.status, 200, JSON.stringify(back.body));
        const found = back.body.memories.find((m: Memory) => m.id === oldest.id);
        assert.equal(found?.archivedAt, oldest.archivedAt, "scored, and flagged by archivedAt");
        assert.equal(back.body.memories.length, live.length + archived.length);
      }),
  });

  Deno.test({
    name: `[${backend.name}] memoryBudget is validated like the other settings`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { w } = await worldWithAgent(app, MIRA);
        const world = await call(app, "GET", w);
        assert.equal(world.body.settings.memoryBudget, 500);
        for (const memoryBudget of [0, 9, 2.5, "many", 100_001]) {
          const res = await call(app, "PATCH", w, { settings: { memoryBudget } });
          assert.equal(res.status, 400, JSON.stringify(res.body));
          assert.equal(res.body.error.code, "invalid_request");
        }
        const ok = await call(app, "PATCH", w, { settings: { memoryBudget: 50 } });
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
        assert.equal(ok.body.settings.memoryBudget, 50);
      }),
  });
}

async function vectorsOf(deps: Deps, memories: MemoryRecord[]) {
  const { vectors } = await deps.embedder.embed(memories.map((m) => m.description), {
    worldId: memories[0].worldId,
    operation: "test",
  });
  return { memories, vectors: memories.map((m, i) => ({ id: m.id, vector: vectors[i] })) };
}

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name:
      `[${backend.name}] POST …/consolidate merges near-identical memories, keeping provenance and evidence links`,
    ...opts,
    fn: () =>
      withApp(async (app, deps) => {
        const { w, a } = await worldWithAgent(app, MIRA);
        const hours = [8, 9, 10, 11, 12, 13];
        const p = await call(app, "POST", `${a}/perceive`, {
          observations: [
            ...hours.map((h, i) => ({
              text: i % 2 ? "Lucia is wiping the counter." : "lucia is wiping the  counter",
              at: `2023-02-13T${String(h).padStart(2, "0")}:00:00`,
            })),
            { text: "Lucia is making coffee", at: "2023-02-13T08:30:00" },
          ],
        });
        assert.equal(p.status, 200, JSON.stringify(p.body));
        const wiping = p.body.memories.slice(0, 6) as Memory[];
        const scope = {
          worldId: WorldId.parse(w.split("/").pop()),
          agentId: AgentId.parse("mira"),
        };
        const told = (id: string, by: string, minutes: number): MemoryRecord => ({
          id: MemoryId.parse(id),
          worldId: scope.worldId,
          agentId: scope.agentId,
          kind: "chat",
          description: "The well is dry, they say",
          createdAt: `2023-02-13T14:${String(minutes).padStart(2, "0")}:00` as GameTime,
          lastAccessedAt: `2023-02-13T14:${String(minutes).padStart(2, "0")}:00` as GameTime,
          importance: 4,
          provenance: `told_by:${by}`,
        });
        const insight: MemoryRecord = {
          ...told("insight", "x", 30),
          kind: "reflection",
          description: "Lucia keeps the cafe spotless",
          provenance: "self",
          evidence: [MemoryId.parse(wiping[3].id)],
          depth: 1,
        };
        await deps.storage.memoryWriter.append(
          scope,
          await vectorsOf(deps, [
            told("t-sam-1", "Sam", 1),
            told("t-sam-2", "Sam", 2),
            told("t-ann", "Ann", 3),
            insight,
          ]),
        );

        const done = await call(app, "POST", `${a}/consolidate`, {});
        assert.equal(done.status, 200, JSON.stringify(done.body));
        assert.deepEqual(done.body, { groups: 2, merged: 6, archived: 0, live: 2 + 1 + 1 + 2 + 1 });

        const live = await listed(app, a);
        const survivor = live.find((m) => m.id === wiping[0].id)!;
        assert.equal(survivor.count, 6);
        assert.equal(survivor.firstAt, "2023-02-13T08:00:00");
        assert.equal(survivor.lastAt, "2023-02-13T13:00:00");
        assert.deepEqual(survivor.evidence, wiping.slice(1).map((m) => m.id));
        const out = await listed(app, a, "&archived=true");
        assert.deepEqual(
          out.map((m) => [m.id, m.mergedInto]).sort(),
          [...wiping.slice(1).map((m) => [m.id, wiping[0].id]), ["t-sam-2", "t-sam-1"]].sort(),
        );
        // Told-by provenance never mixes: Ann's telling stays on its own.
        assert.ok(live.some((m) => m.id === "t-ann"));
        assert.equal(live.find((m) => m.id === "t-sam-1")?.count, 2);
        // The reflection still cites the merged sighting, which still resolves.
        const cited = await call(app, "GET", `${a}/memories/insight`);
        assert.deepEqual(cited.body.evidenceChain.map((m: Memory) => m.id), [wiping[3].id]);
        assert.equal(cited.body.evidenceChain[0].mergedInto, wiping[0].id);
        // Nothing more to merge: a second consolidation changes nothing.
        const again = await call(app, "POST", `${a}/consolidate`, {});
        assert.deepEqual(again.body, { ...done.body, groups: 0, merged: 0 });
        const agent = await call(app, "GET", a);
        assert.equal(agent.body.consolidatedAt, "2023-02-13T07:00:00");

        const missing = await call(app, "POST", `${w}/agents/nobody/consolidate`, {});
        assert.equal(missing.status, 404);
        assert.equal(missing.body.error.code, "agent_not_found");
        const bad = await call(app, "POST", `${a}/consolidate`, { at: "yesterday" });
        assert.equal(bad.status, 400);
        assert.equal(bad.body.error.code, "invalid_request");
      }),
  });

  Deno.test({
    name: `[${backend.name}] a tick past midnight consolidates each agent once a game night`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const world = await call(app, "POST", "/v1/worlds", {
          name: "Night",
          startTime: "2023-02-13T23:40:00",
          clock: { mode: "manual" },
        });
        assert.equal(world.status, 201, JSON.stringify(world.body));
        const w = `/v1/worlds/${world.body.id}`;
        assert.equal((await call(app, "POST", `${w}/agents`, MIRA)).status, 201);
        for (let i = 0; i < 4; i++) {
          const tick = await call(app, "POST", `${w}/tick`, { minutes: 10 });
          assert.equal(tick.status, 200, JSON.stringify(tick.body));
        }
        const events = await call(app, "GET", `${w}/events?type=consolidated&limit=100`);
        assert.equal(events.status, 200, JSON.stringify(events.body));
        assert.deepEqual(
          events.body.events.map((e: { at: string; agentId: string }) => [e.at, e.agentId]),
          [["2023-02-14T00:00:00", "mira"]],
        );
        const agent = await call(app, "GET", `${w}/agents/mira`);
        assert.equal(agent.body.consolidatedAt, "2023-02-14T00:00:00");
      }),
  });

  Deno.test({
    name: `[${backend.name}] a reflection that repeats an insight strengthens the stored one`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await worldWithAgent(app, MIRA);
        const observations = [
          "Camille Moreau is married to Victor Moreau",
          "Camille Moreau and Victor Moreau run the bakery together",
          "Victor Moreau kissed Camille Moreau goodbye",
        ].map((text) => ({ text }));
        assert.equal((await call(app, "POST", `${a}/perceive`, { observations })).status, 200);
        const texts: string[] = [];
        for (const at of ["2023-02-13T09:00:00", "2023-02-13T10:00:00", "2023-02-13T11:00:00"]) {
          const r = await call(app, "POST", `${a}/reflect`, { force: true, at });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          texts.push(...r.body.reflections.map((m: Memory) => m.description));
        }
        const stored = (await listed(app, a, "&kind=reflection")).map((m) => m.description);
        assert.equal(new Set(stored).size, stored.length, "every stored insight is distinct");
        assert.deepEqual([...stored].sort(), [...texts].sort());
        const counted = (await listed(app, a, "&kind=reflection")).filter((m) =>
          (m.count ?? 1) > 1
        );
        assert.ok(counted.length > 0, "a repeated insight was counted on the stored one");
      }),
  });
}

Deno.test({
  name: "memory upkeep routes: close the backends",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => close(),
});
