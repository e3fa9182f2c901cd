/**
 * Where people are: an agent starts where it lives (placed when created, in its own room of a
 * shared home), the example town shows everyone at home before its first tick, and an imported
 * character gets a home and a day of its own, on both storage backends.
 */
import assert from "node:assert/strict";
import { listAgents } from "../../../../src/app/agents/agent_store.ts";
import { currentAction, makeDayPlan } from "../../../../src/app/cognition/planning.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { importCard } from "../../../../src/app/persona/card_import.ts";
import { createWorldFromTemplate } from "../../../../src/app/templates/create_from_template.ts";
import { replaceEnvironment } from "../../../../src/app/world/environment_store.ts";
import { CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";
import { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import { parseCardText } from "../../../../src/domain/persona/character_card.ts";
import { locationChoices } from "../../../../src/domain/plan/plan_places.ts";
import type { GameTime } from "../../../../src/domain/time/game_time.ts";
import { Environment } from "../../../../src/domain/world/environment.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { getWorld } from "../../../../src/app/world/world_store.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { inAgentTransaction } from "../../../_helpers/agent_transaction.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { startBackends } from "../../../_helpers/backends.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { TOWNS } from "../../../../towns/mod.ts";
import { maraData } from "../../domain/persona/_card_fixture.ts";

const { backends, close } = await startBackends();

const HOMES = Environment.parse({
  areas: [
    {
      name: "Dorm",
      subAreas: [
        { name: "Nadia Haddad's room", objects: [{ name: "bed" }, { name: "desk" }] },
        { name: "Felix Brandt's room", objects: [{ name: "bed" }, { name: "desk" }] },
        { name: "common room", objects: [{ name: "sofa" }] },
      ],
    },
    {
      name: "Delgado house",
      subAreas: [
        { name: "Rosa's bedroom", objects: [{ name: "bed" }] },
        { name: "Miguel's bedroom", objects: [{ name: "bed" }, { name: "chess set" }] },
        { name: "porch", objects: [{ name: "rocking chair" }] },
      ],
    },
    {
      name: "Bergstrom house",
      subAreas: [{ name: "bedroom", objects: [{ name: "bed" }] }, { name: "study" }],
    },
    {
      name: "Market Hall",
      common: true,
      subAreas: [{ name: "Joe's bar", objects: [{ name: "stool" }] }],
    },
  ],
});

const PEOPLE: [string, string | undefined, string | null][] = [
  ["Nadia Haddad", "Dorm", "Dorm:Nadia Haddad's room:bed"],
  ["Felix Brandt", "Dorm", "Dorm:Felix Brandt's room:bed"],
  ["Rosa Delgado", "Delgado house", "Delgado house:Rosa's bedroom:bed"],
  ["Miguel Delgado", "Delgado house", "Delgado house:Miguel's bedroom:bed"],
  ["Ruth Bergstrom", "Bergstrom house", "Bergstrom house:bedroom:bed"],
  ["Walter Bergstrom", "Bergstrom house", "Bergstrom house:bedroom:bed"],
  ["Sam Moore", undefined, null],
];

/** The example town, created from its template as `POST /v1/worlds` does. */
async function smallville(deps: Deps): Promise<WorldId> {
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({ id: "town", name: "Town", template: "smallville" }),
    TOWNS,
  );
  return world.id as WorldId;
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a new agent starts where it sleeps at home: its own room in a shared home, the shared bedroom of a couple; nowhere without a home`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const { id } = await coreWorld(deps, { name: "Homes" });
      await replaceEnvironment(deps, id, HOMES);
      for (const [name, home, expected] of PEOPLE) {
        const { agent } = await createAgent(
          deps,
          id,
          CreateAgentInput.parse({ name, home, description: `${name} lives here` }),
        );
        assert.equal(agent.location, expected, name);
        const stored = (await listAgents(deps, id)).find((a) => a.id === agent.id)!;
        assert.equal(stored.location, expected, `${name}, as stored`);
        if (home === undefined) continue;
        assert.ok(
          locationChoices(HOMES, stored, "Market Hall").some((l) =>
            l.path === "Market Hall:Joe's bar:stool"
          ),
          "a named room of a common place is for everyone",
        );
        const paths = locationChoices(HOMES, stored, home).map((l) => l.path);
        const others = PEOPLE.filter(([n, h]) => h === home && n !== name)
          .map(([, , bed]) => bed!)
          .filter((bed) => bed !== expected);
        for (const bed of others) {
          assert.ok(!paths.includes(bed), `${name} is offered no one else's room: ${bed}`);
        }
      }
    },
  });

  Deno.test({
    name:
      `[${backend.name}] the example town shows every resident at home, in their own room, before its first tick`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const agents = await listAgents(deps, await smallville(deps));
      assert.equal(agents.length, 25);
      for (const agent of agents) {
        assert.ok(agent.location?.startsWith(`${agent.home}:`), `${agent.name}: ${agent.location}`);
        assert.match(agent.location!, /:bed$/);
      }
      const dorm = agents.filter((a) => a.home === "Ashford College Dorm");
      assert.equal(new Set(dorm.map((a) => a.location)).size, dorm.length, "a room each");
      for (const a of dorm) assert.ok(a.location!.includes(`${a.name}'s room`), a.location!);
      const miguel = agents.find((a) => a.id === "miguel")!;
      assert.equal(miguel.location, "Delgado house:Miguel's bedroom:bed");
    },
  });

  Deno.test({
    name:
      `[${backend.name}] an imported character gets a home (a vacant lodging, or the one asked for) and a day without work that ends in its own bed`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const worldId = await smallville(deps);
      const card = () =>
        parseCardText(
          JSON.stringify({ spec: "chara_card_v2", spec_version: "2.0", data: maraData() }),
        );
      const { agent } = await importCard(deps, card(), { worldId, id: AgentId.parse("mara") });
      assert.equal(agent.home, "Elm Street Inn", "the inn nobody lives in");
      assert.equal(agent.location, "Elm Street Inn:guest room:bed");
      assert.equal(agent.workplace, null);

      const world = await getWorld(deps, worldId);
      const { plan } = await makeDayPlan(deps, { world, agent }, { date: "2023-02-13" });
      for (const item of plan.items) assert.doesNotMatch(item.description, /\bwork/);
      const bedtime = plan.items.at(-1)!;
      assert.match(bedtime.description, /bed/);
      assert.equal(bedtime.location, "Elm Street Inn");
      assert.ok(plan.items.some((i) => i.location !== "Elm Street Inn"), "out in town by day");
      const late = await inAgentTransaction(
        deps,
        { world, agent },
        (tx) => currentAction(deps, tx, { at: bedtime.start as GameTime }),
      );
      assert.match(late.action!.location, /^Elm Street Inn:/);

      const asked = await importCard(deps, card(), {
        worldId,
        id: AgentId.parse("mara2"),
        home: "marigold cafe",
        workplace: "The Copper Kettle",
      });
      assert.equal(asked.agent.home, "Marigold Cafe");
      assert.equal(asked.agent.workplace, "The Copper Kettle");
      await assert.rejects(
        importCard(deps, card(), { worldId, id: AgentId.parse("mara3"), home: "Atlantis" }),
        (e: unknown) => e instanceof SimulacraError && e.code === "unprocessable",
      );
    },
  });
}

Deno.test({
  name: "placement tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
