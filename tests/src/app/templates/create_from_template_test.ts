import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../../lib/offline/local_embedder.ts";
import { listAgents } from "../../../../src/app/agents/agent_store.ts";
import { ModelUnavailableError, SimulacraError } from "../../../../src/domain/errors.ts";
import { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import type { Embedder } from "../../../../src/ports/embedder.ts";
import type { LanguageModel } from "../../../../src/ports/language_model.ts";
import { recall } from "../../../../src/app/memory/recall.ts";
import { loadEnvironment } from "../../../../src/app/world/environment_store.ts";
import { buildTown } from "../../../../src/app/templates/build_town.ts";
import { createWorldFromTemplate } from "../../../../src/app/templates/create_from_template.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { getWorld } from "../../../../src/app/world/world_store.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { smallvilleTown, TOWNS } from "../../../../towns/mod.ts";

/** A model that must not be called. */
const NO_MODEL: LanguageModel = {
  info: { mode: "offline", main: "none", fast: "none" },
  complete: () => Promise.reject(new Error("The template made a model call")),
};

/** The local embedder under another name (an archive made with it must be embedded again). */
function otherEmbedder(failAt = Infinity): Embedder & { calls: number } {
  const local = new LocalEmbedder({ dimensions: 384 });
  return {
    info: { ...local.info, model: "another-embedder" },
    calls: 0,
    embed(texts, attribution) {
      if (++this.calls === failAt) {
        return Promise.reject(new ModelUnavailableError("model_unavailable", "Embedder down"));
      }
      return local.embed(texts, attribution);
    },
  };
}

Deno.test("createWorldFromTemplate() without a template creates a bare world", async () => {
  await using deps = await makeTestDeps();
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({ id: "bare", name: "Bare", startTime: "2023-03-01T09:00:00" }),
    TOWNS,
  );
  assert.equal(world.clock.now, "2023-03-01T09:00:00");
  assert.equal(await loadEnvironment(deps, "bare"), null);
  assert.deepEqual(await listAgents(deps, WorldId.parse("bare")), []);
});

Deno.test("createWorldFromTemplate() loads the town from its archive without a model call", async () => {
  let embeddings = 0;
  const local = new LocalEmbedder({ dimensions: 384 });
  const embedder: Embedder = {
    info: local.info,
    embed: (texts, attribution) => (embeddings++, local.embed(texts, attribution)),
  };
  await using deps = await makeTestDeps({ model: NO_MODEL, embedder });
  const town = smallvilleTown();
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({ id: "town", name: "Town", template: "smallville" }),
    TOWNS,
  );
  assert.equal(embeddings, 0);
  assert.equal(world.name, "Town");
  assert.equal(world.clock.now, town.startTime);
  assert.deepEqual(await getWorld(deps, WorldId.parse("town")), world);
  assert.deepEqual(await loadEnvironment(deps, "town"), town.environment);
  const agents = await listAgents(deps, WorldId.parse("town"));
  assert.deepEqual(agents.map((a) => a.id).sort(), town.agents.map((a) => a.id).sort());
  for (const input of town.agents) {
    const scope = { worldId: WorldId.parse("town"), agentId: AgentId.parse(input.id) };
    const seeds = (await deps.storage.memories.all(scope)).map((m) => m.description);
    assert.deepEqual(seeds, input.description.split(";").map((s) => s.trim()), input.id);
  }
});

Deno.test("createWorldFromTemplate() gives the town the requested id, start time, clock and settings", async () => {
  await using deps = await makeTestDeps({ model: NO_MODEL });
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({
      name: "Later",
      template: "smallville",
      startTime: "2024-06-03T08:30:00",
      minutesPerTick: 5,
      clock: { mode: "manual" },
      settings: { reflectionThreshold: 99, seed: 7 },
    }),
    TOWNS,
  );
  assert.notEqual(world.id, "smallville");
  assert.equal(world.clock.now, "2024-06-03T08:30:00");
  assert.equal(world.clock.minutesPerTick, 5);
  assert.equal(world.clock.mode, "manual");
  assert.equal(world.settings.reflectionThreshold, 99);
  assert.equal(world.settings.seed, 7);
  const worldId = world.id as WorldId;
  const agents = await listAgents(deps, worldId);
  assert.equal(agents.length, 25);
  assert.ok(agents.every((a) => a.createdAt === world.clock.now && a.worldId === worldId));
  const memories = await deps.storage.memories.all({ worldId, agentId: agents[0].id });
  assert.ok(memories.length > 0);
  for (const m of memories) {
    assert.equal(m.createdAt, world.clock.now);
    assert.equal(m.lastAccessedAt, world.clock.now);
    assert.equal(m.worldId, worldId);
  }
  // A second town from the same template lives beside the first.
  const again = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({ name: "Again", template: "smallville" }),
    TOWNS,
  );
  assert.equal((await listAgents(deps, again.id as WorldId)).length, 25);
  await assert.rejects(
    createWorldFromTemplate(
      deps,
      CreateWorldInput.parse({ id: again.id, name: "Taken", template: "smallville" }),
      TOWNS,
    ),
    /exists already/,
  );
});

Deno.test("createWorldFromTemplate() embeds the seeds again for another embedder, and finds them", async () => {
  const embedder = otherEmbedder();
  await using deps = await makeTestDeps({ model: NO_MODEL, embedder });
  const world = await createWorldFromTemplate(
    deps,
    CreateWorldInput.parse({ id: "other", name: "Other", template: "smallville" }),
    TOWNS,
  );
  assert.equal(embedder.calls, 25, "One embedding call per agent");
  const lucia = { ...(await listAgents(deps, world.id as WorldId)).find((a) => a.id === "lucia")! };
  const found = await recall(deps, { world, agent: lucia, queries: ["Valentine's Day party"] }, {
    k: 1,
    at: world.clock.now,
  });
  assert.match(found.results[0][0].memory.description, /Valentine's Day party/);
});

Deno.test("createWorldFromTemplate() leaves nothing behind when embedding again fails", async () => {
  await using deps = await makeTestDeps({ model: NO_MODEL, embedder: otherEmbedder(3) });
  await assert.rejects(
    createWorldFromTemplate(
      deps,
      CreateWorldInput.parse({ id: "half", name: "Half", template: "smallville" }),
      TOWNS,
    ),
    ModelUnavailableError,
  );
  await assert.rejects(getWorld(deps, WorldId.parse("half")), /Cannot find world/);
  assert.deepEqual(await deps.storage.documents.list("agents", "half"), []);
  assert.equal(
    await deps.storage.memories.count({
      worldId: WorldId.parse("half"),
      agentId: AgentId.parse("lucia"),
    }),
    0,
  );
});

Deno.test("buildTown() stops at the first agent that cannot be created", async () => {
  const local = new LocalEmbedder({ dimensions: 384 });
  let calls = 0;
  const flaky: Embedder = {
    info: local.info,
    embed(texts, attribution) {
      if (++calls === 3) {
        return Promise.reject(new ModelUnavailableError("model_unavailable", "Embedder down"));
      }
      return local.embed(texts, attribution);
    },
  };
  await using deps = await makeTestDeps({ embedder: flaky });
  await assert.rejects(
    buildTown(
      deps,
      CreateWorldInput.parse({ id: "half", name: "Half", template: "smallville" }),
      { towns: TOWNS, concurrency: 1 },
    ),
    ModelUnavailableError,
  );
  const made = await listAgents(deps, WorldId.parse("half"));
  // The agents made before the failure stay: building is not atomic (loading a template is).
  assert.ok(made.length > 0 && made.length < 25, `${made.length} agents`);
});

Deno.test("createWorldFromTemplate() refuses a template its catalog does not offer, creating nothing", async () => {
  await using deps = await makeTestDeps({ model: NO_MODEL });
  await assert.rejects(
    createWorldFromTemplate(
      deps,
      CreateWorldInput.parse({ id: "none", name: "None", template: "smallville" }),
      {},
    ),
    (err: SimulacraError) => {
      assert.equal(err.code, "invalid_request");
      assert.deepEqual(err.details, { template: "smallville", offered: [] });
      return true;
    },
  );
  await assert.rejects(getWorld(deps, WorldId.parse("none")), /Cannot find world/);
});
