import assert from "node:assert/strict";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { agentSummary, invalidateSummary } from "../../../../src/app/cognition/agent_summary.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";

Deno.test("agentSummary() joins identity and three aspects, caches it, and remakes it when old, or stale and a third as old", async () => {
  const { model, kinds } = countingModel();
  await using deps = await makeTestDeps({ model });
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({
      name: "T",
      startTime: "2023-02-13T07:00:00",
      settings: { summaryRefreshHours: 6 },
    }),
  );
  const { agent } = await createAgent(deps, world.id as WorldId, {
    name: "John Lin",
    age: 45,
    traits: ["patient", "kind"],
    description: "John Lin is a pharmacy shopkeeper; John Lin loves his family",
  });
  kinds.length = 0;
  const first = await agentSummary(deps, { world, agent, at: "2023-02-13T08:00:00" });
  assert.match(first.summary.text, /^Name: John Lin \(age 45\)\nInnate traits: patient, kind\n/);
  assert.match(first.summary.text, /pharmacy shopkeeper/);
  assert.deepEqual(kinds, ["agent_summary"], "one model call for three aspects");
  assert.equal(first.usage.calls, 1);

  const cached = await agentSummary(deps, { world, agent, at: "2023-02-13T12:00:00" });
  assert.deepEqual(kinds, ["agent_summary"], "cached within summaryRefreshHours");
  assert.equal(cached.usage.calls, 0);
  assert.equal(cached.summary.at, "2023-02-13T08:00:00");

  await agentSummary(deps, { world, agent, at: "2023-02-13T15:00:00" });
  assert.equal(kinds.length, 2, "remade when older than 6 game hours");

  await invalidateSummary(deps, agent);
  const soon = await agentSummary(deps, { world, agent, at: "2023-02-13T16:30:00" });
  assert.equal(kinds.length, 2, "a stale summary younger than a third of 6 hours is kept");
  assert.equal(soon.summary.stale, true);
  const remade = await agentSummary(deps, { world, agent, at: "2023-02-13T17:30:00" });
  assert.equal(kinds.length, 3, "remade after a reflection marked it stale, 2 hours on");
  assert.equal(remade.summary.stale, false);
});
