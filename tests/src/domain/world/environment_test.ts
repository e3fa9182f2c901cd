import assert from "node:assert/strict";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";
import type { AgentId } from "../../../../src/domain/ids.ts";
import { perceive } from "../../../../src/app/perceive.ts";
import {
  Environment,
  listPaths,
  renderEnvironment,
  resolvePath,
} from "../../../../src/domain/world/environment.ts";
import {
  getEnvironment,
  knownAreasAfter,
  replaceEnvironment,
  setObjectState,
} from "../../../../src/app/world/environment_store.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";

const TREE = {
  areas: [
    {
      name: "Hobbs Cafe",
      common: true,
      subAreas: [
        {
          name: "cafe",
          objects: [{ name: "counter" }, { name: "coffee machine", state: "brewing coffee" }],
        },
        { name: "kitchen", objects: [{ name: "stove", state: "off" }] },
      ],
    },
    { name: "Johnson Park", common: true },
    { name: "The Lin family's house", subAreas: [{ name: "garden" }] },
  ],
};

Deno.test("Environment fills defaults and rejects duplicate, separator-bearing or oversized names", () => {
  const env = Environment.parse(TREE);
  assert.equal(env.areas[0].subAreas[0].objects[0].state, "");
  assert.equal(env.areas[1].common, true);
  assert.deepEqual(env.areas[1].subAreas, []);
  assert.equal(env.areas[2].common, false);
  const bad = [
    { areas: [] },
    { areas: [{ name: "Cafe" }, { name: "cafe" }] },
    { areas: [{ name: "Cafe", subAreas: [{ name: "a" }, { name: "A" }] }] },
    { areas: [{ name: "Cafe:bar" }] },
    { areas: [{ name: " " }] },
    { areas: [{ name: "x".repeat(101) }] },
    { areas: [{ name: "Cafe", extra: 1 }] },
    {
      areas: Array.from({ length: 50 }, (_, a) => ({
        name: `area ${a}`,
        subAreas: [{
          name: "room",
          objects: Array.from({ length: 41 }, (_, o) => ({ name: `o${o}` })),
        }],
      })),
    },
  ];
  for (const tree of bad) {
    assert.ok(!Environment.safeParse(tree).success, JSON.stringify(tree).slice(0, 80));
  }
});

Deno.test("renderEnvironment() renders one line per (known) area with object states", () => {
  const env = Environment.parse(TREE);
  assert.equal(
    renderEnvironment(env),
    [
      "Hobbs Cafe: cafe (counter, coffee machine: brewing coffee), kitchen (stove: off)",
      "Johnson Park",
      "The Lin family's house: garden",
    ].join("\n"),
  );
  assert.equal(renderEnvironment(env, ["johnson park"]), "Johnson Park");
});

Deno.test("listPaths() and resolvePath() name areas, sub-areas and objects", () => {
  const env = Environment.parse(TREE);
  assert.deepEqual(listPaths(env), [
    "Hobbs Cafe:cafe:counter",
    "Hobbs Cafe:cafe:coffee machine",
    "Hobbs Cafe:kitchen:stove",
    "Johnson Park",
    "The Lin family's house:garden",
  ]);
  assert.deepEqual(listPaths(env, ["The Lin family's house"]), ["The Lin family's house:garden"]);
  const stove = resolvePath(env, "hobbs cafe : Kitchen : STOVE");
  assert.equal(stove?.path, "Hobbs Cafe:kitchen:stove");
  assert.equal(stove?.object?.state, "off");
  assert.equal(resolvePath(env, "Hobbs Cafe:kitchen")?.subArea?.name, "kitchen");
  assert.equal(resolvePath(env, "Hobbs Cafe:kitchen:oven"), null);
  assert.equal(resolvePath(env, "Nowhere"), null);
  assert.equal(resolvePath(env, "a:b:c:d"), null);
});

Deno.test("setObjectState() changes one object and names an unknown path in a not_found error", async () => {
  await using deps = await makeTestDeps();
  const { id } = await coreWorld(deps, { name: "T" });
  await assert.rejects(
    setObjectState(deps, id, { path: "Hobbs Cafe:kitchen:stove", state: "burning" }),
    (err: SimulacraError) =>
      err.code === "not_found" && /Hobbs Cafe:kitchen:stove/.test(err.message),
  );
  await replaceEnvironment(deps, id, Environment.parse(TREE));
  const stove = await setObjectState(deps, id, {
    path: "hobbs cafe:kitchen:stove",
    state: "burning",
  });
  assert.deepEqual(stove, { path: "Hobbs Cafe:kitchen:stove", name: "stove", state: "burning" });
  const env = await getEnvironment(deps, id);
  assert.equal(resolvePath(env, "Hobbs Cafe:kitchen:stove")?.object?.state, "burning");
  assert.equal(resolvePath(env, "Hobbs Cafe:cafe:coffee machine")?.object?.state, "brewing coffee");
  await assert.rejects(
    setObjectState(deps, id, { path: "Hobbs Cafe:kitchen:oven", state: "on" }),
    (err: SimulacraError) =>
      err.code === "not_found" && /Hobbs Cafe:kitchen:oven/.test(err.message),
  );
});

Deno.test("createAgent() knows home, workplace and common areas, and rejects unknown areas with unprocessable", async () => {
  await using deps = await makeTestDeps();
  const { id } = await coreWorld(deps, { name: "T" });
  const input = { name: "Eddy Lin", description: "Eddy Lin studies music" };
  await assert.rejects(
    createAgent(deps, id, { ...input, home: "The Lin family's house" }),
    (err: SimulacraError) => err.code === "unprocessable" && /PUT .*environment/.test(err.message),
  );
  await replaceEnvironment(deps, id, Environment.parse(TREE));
  const { agent } = await createAgent(deps, id, { ...input, home: "the lin family's house" });
  assert.equal(agent.home, "The Lin family's house", "the environment's spelling");
  assert.equal(agent.workplace, null);
  assert.deepEqual(agent.knownAreas, ["The Lin family's house", "Hobbs Cafe", "Johnson Park"]);
  await assert.rejects(
    createAgent(deps, id, { ...input, workplace: "Oak Hill College" }),
    (err: SimulacraError) =>
      err.code === "unprocessable" && /workplace "Oak Hill College"/.test(err.message),
  );
});

Deno.test("perceive() adds the area of a perceived location the agent did not know", async () => {
  await using deps = await makeTestDeps();
  const { id } = await coreWorld(deps, { name: "T" });
  await replaceEnvironment(deps, id, {
    areas: [
      { name: "Home", common: false, subAreas: [] },
      { name: "Hobbs Cafe", common: false, subAreas: [{ name: "cafe", objects: [] }] },
    ],
  });
  const { agent } = await createAgent(deps, id, {
    name: "Eddy",
    description: "Eddy",
    home: "Home",
  });
  assert.deepEqual(agent.knownAreas, ["Home"]);
  await perceive(deps, { worldId: id, agentId: agent.id }, {
    observations: [
      { text: "the cafe is busy", location: "hobbs cafe:cafe" },
      { text: "a rocket lands", location: "Mars:crater" },
    ],
  });
  const after = (await loadAgent(deps, { worldId: id, agentId: agent.id as AgentId })).value;
  assert.deepEqual(after.knownAreas, ["Home", "Hobbs Cafe"]);
  assert.deepEqual(
    await knownAreasAfter(deps, id, {
      known: after.knownAreas,
      locations: ["Home:kitchen", undefined],
    }),
    ["Home", "Hobbs Cafe"],
    "known areas need no environment read",
  );
});
