import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { mentionsFact } from "../../src/eval/diffusion.ts";
import { smallvilleTown, TOWNS } from "../../towns/mod.ts";
import { startBackends } from "../_helpers/backends.ts";
import { type App, appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { call } from "../_helpers/http_call.ts";

const { backends, close } = await startBackends();

interface AgentBody {
  id: string;
  name: string;
  home: string | null;
  workplace: string | null;
  knownAreas: string[];
}

interface MemoryBody {
  kind: string;
  description: string;
}

async function seedsOf(app: App, w: string, agent: string): Promise<MemoryBody[]> {
  const page = await call(app, "GET", `${w}/agents/${agent}/memories?kind=seed&limit=100`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body.memories;
}

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name: `[${backend.name}] POST /v1/worlds with template "smallville" creates the whole town`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const created = await call(app, "POST", "/v1/worlds", {
          id: "town",
          name: "Smallville",
          template: "smallville",
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.equal(created.body.clock.now, "2023-02-13T07:00:00", "the template's start");
        const w = "/v1/worlds/town";

        await (async function environmentHasTheTown() {
          const env = await call(app, "GET", `${w}/environment`);
          assert.equal(env.status, 200);
          const areas: { name: string; common: boolean; subAreas: unknown[] }[] = env.body.areas;
          assert.ok(areas.length >= 10, `${areas.length} areas`);
          assert.ok(areas.every((a) => a.subAreas.length > 0), "every area has sub-areas");
          const names = areas.map((a) => a.name);
          for (const kind of [/cafe/i, /pub|kettle/i, /park/i, /college$/i, /dorm/i, /pharmacy/i]) {
            assert.ok(names.some((n) => kind.test(n)), `an area matching ${kind}`);
          }
        })();

        const listed = await call(app, "GET", `${w}/agents`);
        assert.equal(listed.status, 200);
        const agents: AgentBody[] = listed.body.agents;
        assert.ok(agents.length >= 12, `${agents.length} agents`);
        const env = (await call(app, "GET", `${w}/environment`)).body;
        const areaNames = new Set(env.areas.map((a: { name: string }) => a.name));
        for (const agent of agents) {
          assert.ok(agent.home !== null && areaNames.has(agent.home), `${agent.id}'s home`);
          assert.ok(
            agent.workplace === null || areaNames.has(agent.workplace),
            `${agent.id}'s workplace`,
          );
          assert.ok(agent.knownAreas.includes(agent.home!), `${agent.id} knows its home`);
        }
        assert.ok(agents.filter((a) => a.workplace !== null).length >= 12, "most agents work");

        // Every agent's description became seeds; the scenarios sit with their originators.
        const seeds = new Map(
          await Promise.all(agents.map(async (a) => [a.id, await seedsOf(app, w, a.id)] as const)),
        );
        for (const [id, list] of seeds) assert.ok(list.length >= 4, `${id} has seeds`);
        const town = smallvilleTown();
        for (const fact of town.facts) {
          const holders = [...seeds].filter(([, list]) =>
            list.some((m) => mentionsFact(m.description, fact))
          ).map(([id]) => id);
          assert.deepEqual(holders, [fact.originator], `only the originator knows "${fact.id}"`);
        }
        const party = seeds.get("lucia")!.map((m) => m.description).join("\n");
        assert.match(
          party,
          /Valentine's Day party at Marigold Cafe on February 14 from 5 pm to 7 pm/,
        );
        const lucia = agents.find((a) => a.id === "lucia")!;
        assert.equal(lucia.workplace, "Marigold Cafe", "the party's host runs the cafe");
        assert.match(
          seeds.get("walter")!.map((m) => m.description).join("\n"),
          /running for mayor/,
        );
      }),
  });

  Deno.test({
    name: `[${backend.name}] POST /v1/worlds with a template keeps the given startTime`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const created = await call(app, "POST", "/v1/worlds", {
          name: "Smallville",
          template: "smallville",
          startTime: "2023-02-14T06:00:00",
          minutesPerTick: 15,
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.deepEqual(created.body.clock, {
          now: "2023-02-14T06:00:00",
          minutesPerTick: 15,
          mode: "cron",
          paused: false,
        });
      }),
  });
}

Deno.test("POST /v1/worlds rejects an unknown template and a missing startTime", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger, towns: TOWNS });
  const unknown = await call(app, "POST", "/v1/worlds", { name: "X", template: "atlantis" });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error.code, "invalid_request");
  const bare = await call(app, "POST", "/v1/worlds", { name: "X" });
  assert.equal(bare.status, 400);
  assert.match(JSON.stringify(bare.body), /startTime/);
  const conflict = await call(app, "POST", "/v1/worlds", {
    id: "dup",
    name: "X",
    startTime: "2023-02-13T07:00:00",
  });
  assert.equal(conflict.status, 201);
  const again = await call(app, "POST", "/v1/worlds", {
    id: "dup",
    name: "Y",
    template: "smallville",
  });
  assert.equal(again.status, 409);
  assert.equal((await call(app, "GET", "/v1/worlds/dup/agents")).body.agents.length, 0);
});

Deno.test({
  name: "template routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});

Deno.test("POST /v1/worlds with a template answers 400 from an app given no towns", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const refused = await call(app, "POST", "/v1/worlds", {
    id: "t",
    name: "T",
    template: "smallville",
  });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.error.code, "invalid_request");
  assert.equal((await call(app, "GET", "/v1/worlds/t")).status, 404);
});
