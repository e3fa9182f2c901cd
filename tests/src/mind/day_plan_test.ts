import assert from "node:assert/strict";
import type { Agent } from "../../../src/domain/agent/agent.ts";
import { createAgent } from "../../../src/app/lifecycle/create_agent.ts";
import { planDay } from "../../../src/mind/day_plan.ts";
import { countingModel, makeTestDeps } from "../../_helpers/test_deps.ts";
import { coreWorld } from "../../_helpers/core_world.ts";

Deno.test("planDay() labels a whole day plan.day and a remainder plan.replan, for the agent it plans", async () => {
  const { model, sent } = countingModel();
  await using deps = await makeTestDeps({ model });
  const { world, id } = await coreWorld(deps, { name: "Smallville" });
  const { agent } = await createAgent(deps, id, {
    id: "isabella" as Agent["id"],
    name: "Isabella Rodriguez",
    description: "Isabella Rodriguez runs Hobbs Cafe",
  });
  sent.length = 0;
  const request = {
    summary: "Name: Isabella Rodriguez",
    date: "2023-02-13",
    previousDay: [],
    comingUp: [],
    places: [
      { name: "Isabella's apartment", role: "home" as const, contents: "" },
      { name: "Hobbs Cafe", role: "workplace" as const, contents: "" },
    ],
    minItems: 5,
    maxItems: 8,
  };

  const day = await planDay(deps, { world, agent }, { ...request, remainder: null });
  const rest = await planDay(deps, { world, agent }, {
    ...request,
    minItems: 1,
    remainder: {
      from: "14:00",
      wakeUp: "07:00",
      reason: "a party came up",
      directive: null,
      done: [],
      interrupted: null,
      planned: [],
    },
  });

  assert.deepEqual(sent.map((s) => s.attribution), [
    { worldId: world.id, agentId: agent.id, operation: "plan.day" },
    { worldId: world.id, agentId: agent.id, operation: "plan.replan" },
  ]);
  const text = JSON.stringify(sent[0].prompt.messages);
  assert.ok(text.includes("Isabella Rodriguez") && text.includes("Monday"), "name and weekday");
  assert.ok(day.value.items.length >= 5 && rest.value.items.length >= 1);
  assert.equal(day.usage.calls, 1);
  assert.equal(rest.usage.calls, 1);
});
