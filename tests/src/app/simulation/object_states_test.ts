import assert from "node:assert/strict";
import type { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import type { LanguageModel } from "../../../../src/ports/language_model.ts";
import { Environment, resolvePath } from "../../../../src/domain/world/environment.ts";
import {
  getEnvironment,
  replaceEnvironment,
  setObjectState,
} from "../../../../src/app/world/environment_store.ts";
import {
  applyObjectStates,
  loadObjectOrigins,
  setByAgent,
} from "../../../../src/app/simulation/object_states.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps, unreachableModel } from "../../../_helpers/test_deps.ts";

/** The offline model, or with `fail` one whose every call finds the endpoint unreachable. */
function counting(fail = false): { model: LanguageModel; kinds: string[] } {
  return countingModel(fail ? unreachableModel() : undefined);
}

const isabella = "isabella" as AgentId;
const klaus = "klaus" as AgentId;
const at = "2023-02-13T08:00:00";

async function cafe(fail = false) {
  const { model, kinds } = counting(fail);
  const deps = await makeTestDeps({ model });
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ id: "w", name: "W", startTime: "2023-02-13T07:00:00" }),
  );
  const id = world.id as WorldId;
  await replaceEnvironment(
    deps,
    id,
    Environment.parse({
      areas: [{
        name: "Hobbs Cafe",
        subAreas: [{
          name: "cafe",
          objects: [{ name: "coffee machine", state: "off" }, { name: "counter" }],
        }],
      }],
    }),
  );
  const state = async (path: string) =>
    resolvePath(await getEnvironment(deps, id), path)!.object!.state;
  return { deps, id, kinds, state };
}

Deno.test("applyObjectStates() sets every used object in one call and restores it when left", async (t) => {
  const { deps, id, kinds, state } = await cafe();
  await using _ = deps;
  const machine = "Hobbs Cafe:cafe:coffee machine";

  await t.step("uses: one call for all, the first user by id decides a shared object", async () => {
    const out = await applyObjectStates(deps, id, {
      at,
      uses: [
        {
          agentId: klaus,
          agentName: "Klaus",
          path: "hobbs cafe:cafe:coffee machine",
          action: "wiping it",
        },
        { agentId: isabella, agentName: "Isabella", path: machine, action: "making coffee" },
        { agentId: klaus, agentName: "Klaus", path: "Hobbs Cafe:cafe:counter", action: "reading" },
      ],
      leaves: [],
    });
    assert.deepEqual(kinds, ["object_state"]);
    assert.equal(out.usage.calls, 1);
    assert.equal(await state(machine), "brewing coffee");
    assert.equal(await state("Hobbs Cafe:cafe:counter"), "in use");
    assert.deepEqual(
      out.events.map((e) => [e.type, e.agentId, e.path, e.state, e.previous]),
      [
        ["object_state", isabella, machine, "brewing coffee", "off"],
        ["object_state", klaus, "Hobbs Cafe:cafe:counter", "in use", ""],
      ],
    );
    assert.ok(setByAgent(await loadObjectOrigins(deps, id), machine, "brewing coffee"));
  });

  await t.step("a known object and action costs no call", async () => {
    kinds.length = 0;
    await setObjectState(deps, id, { path: machine, state: "off" });
    await applyObjectStates(deps, id, {
      at,
      uses: [
        { agentId: isabella, agentName: "Isabella", path: machine, action: "Making  coffee" },
      ],
      leaves: [],
    });
    assert.deepEqual(kinds, []);
    assert.equal(await state(machine), "brewing coffee");
  });

  await t.step("leaving restores the object unless someone changed it since", async () => {
    await setObjectState(deps, id, { path: "Hobbs Cafe:cafe:counter", state: "sticky" });
    const out = await applyObjectStates(deps, id, {
      at,
      uses: [],
      leaves: [
        { agentId: isabella, path: machine },
        { agentId: klaus, path: "Hobbs Cafe:cafe:counter" },
        { agentId: klaus, path: machine },
      ],
    });
    assert.equal(await state(machine), "");
    assert.equal(await state("Hobbs Cafe:cafe:counter"), "sticky", "a user's state stays");
    assert.deepEqual(out.events.map((e) => [e.path, e.state]), [[machine, ""]]);
    assert.equal((await loadObjectOrigins(deps, id))[machine], undefined);
  });
});

Deno.test("applyObjectStates() reports a model failure and leaves the objects alone", async () => {
  const { deps, id, state } = await cafe(true);
  await using _ = deps;
  const out = await applyObjectStates(deps, id, {
    at,
    uses: [
      {
        agentId: isabella,
        agentName: "Isabella",
        path: "Hobbs Cafe:cafe:coffee machine",
        action: "brew",
      },
    ],
    leaves: [],
  });
  assert.deepEqual(out.events.map((e) => [e.type, e.code]), [["tick_error", "model_unavailable"]]);
  assert.equal(await state("Hobbs Cafe:cafe:coffee machine"), "off");
});
