import assert from "node:assert/strict";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";
import { AgentId, type WorldId } from "../../../../src/domain/ids.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";

Deno.test("createAgent() rejects an unknown home with 422 before any model call and stores nothing", async () => {
  const { model, kinds } = countingModel();
  await using deps = await makeTestDeps({ model });
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ name: "T", startTime: "2023-02-13T07:00:00" }),
  );
  await assert.rejects(
    createAgent(deps, world.id as WorldId, {
      id: AgentId.parse("eddy"),
      name: "Eddy",
      description: "a student; loves music",
      home: "Atlantis",
    }),
    (err) =>
      err instanceof SimulacraError && err.code === "unprocessable" &&
      /home "Atlantis"/.test(err.message),
  );
  assert.deepEqual(kinds, [], "no model call was spent");
  assert.equal(
    await deps.storage.memories.count({
      worldId: world.id as WorldId,
      agentId: AgentId.parse("eddy"),
    }),
    0,
  );
  assert.equal((await deps.storage.documents.list("agents", world.id)).length, 0);
});
