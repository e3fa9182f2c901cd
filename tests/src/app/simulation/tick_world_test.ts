import assert from "node:assert/strict";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import type { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import type { LoggedEvent } from "../../../../src/ports/event_log.ts";
import { setObjectState } from "../../../../src/app/world/environment_store.ts";
import { tickWorld } from "../../../../src/app/simulation/tick_world.ts";
import { getWorld } from "../../../../src/app/world/world_store.ts";
import { updateWorld } from "../../../../src/app/world/world_store.ts";
import { keySubject, worldSubject } from "../../../../src/domain/world/budget.ts";
import { meteredDeps, utcDay } from "../../../../lib/access/budget_meter.ts";
import { runInRequest } from "../../../../lib/access/request_context.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { makeTown, recordingModel, RESIDENTS } from "../../domain/_town_fixture.ts";

async function eventsOf(
  deps: { storage: { events: { read(w: string, a: number, l: number): Promise<LoggedEvent[]> } } },
  worldId: WorldId,
  tickId: string,
): Promise<LoggedEvent[]> {
  return (await deps.storage.events.read(worldId, 0, 10_000)).filter((e) => e.tickId === tickId);
}

Deno.test("tickWorld() steps every agent along its plan with batched importance and object-state calls", async () => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const id = await makeTown(deps);
  calls.length = 0;
  const ticks = 12;
  for (let i = 0; i < ticks; i++) {
    const before = calls.length;
    const result = await tickWorld(deps, id, { tickId: `t${i}` });
    const mine = calls.slice(before);
    const shared = (kind: string) => mine.filter((c) => c.kind === kind && c.agentId === undefined);
    assert.ok(
      shared("importance").length <= 1,
      "one importance call for every agent's observations",
    );
    assert.ok(shared("object_state").length <= 1, "one object-state call for every object");
    assert.equal(result.steps.length, 3);
    for (const step of result.steps) {
      assert.equal(step.error, undefined);
      assert.ok(step.location !== null && step.action !== null, JSON.stringify(step));
    }
    if (i === 0) {
      const events = await eventsOf(deps, id, "t0");
      assert.equal(events[0].type, "tick");
      assert.deepEqual(
        events.filter((e) => e.type === "plan").map((e) => e.agentId).sort(),
        ["eddy", "isabella", "john"],
      );
      // Everyone started at home (placed when created), so only who left the bed moved.
      assert.ok(events.filter((e) => e.type === "moved").length <= 3);
    }
  }
  const world = await getWorld(deps, id);
  assert.equal(world.clock.now, "2023-02-13T08:50:00");
  const perAgentTick = calls.length / (RESIDENTS.length * ticks);
  // Two morning hours include every day plan and first decompositions: the heaviest stretch.
  assert.ok(perAgentTick <= 2.5, `${perAgentTick.toFixed(2)} calls per agent per tick`);
  const types = new Set((await deps.storage.events.read(id, 0, 10_000)).map((e) => e.type));
  for (const type of ["tick", "perceived", "action", "moved", "plan", "object_state"]) {
    assert.ok(types.has(type), `a ${type} event`);
  }
  // Perceiving grows each agent's memory stream with what it saw.
  const john = await deps.storage.memories.list(
    { worldId: id, agentId: "john" as AgentId },
    { kind: "observation", limit: 100, order: "asc" },
  );
  assert.ok(john.memories.some((m) => /Eddy Lin is /.test(m.description)));
});

Deno.test("tickWorld() checks the budgets again as each step starts: once one is spent, the steps that start after keep their plans", async (t) => {
  for (const spent of ["key", "world"] as const) {
    await t.step(`the ${spent}'s budget`, async () => {
      await using unmetered = await makeTestDeps();
      // Metered as the routes meter, as the request of key k1.
      const deps = meteredDeps(unmetered);
      const id = await makeTown(deps);
      const day = utcDay(Date.now());
      const used = await deps.storage.usage.spend(worldSubject(id), day);
      if (spent === "world") {
        await updateWorld(deps, id, { settings: { budget: { callsPerDay: used.calls + 2 } } });
      }
      // Two calls: the tick's one importance call for what everyone sees as it starts (agents
      // start the day at home, in view of each other), then the first step's.
      const budget = spent === "key" ? { calls: 2 } : undefined;
      // One step at a time, so each step starts after the one before was charged.
      const result = await runInRequest(
        { keyId: "k1" },
        () => tickWorld(deps, id, { day, key: { id: "k1", budget }, concurrency: 1 }),
      );
      assert.deepEqual(
        result.steps.map((s) => [s.agentId, s.budgetExhausted ?? false]),
        [["eddy", false], ["isabella", true], ["john", true]],
        "the first step ran under budget and spent it; the others kept their plans",
      );
      assert.equal(result.budgetExhausted, true);
      assert.ok(result.usage.calls > 1, "the step that started under budget finished");
      const after = await deps.storage.usage.spend(worldSubject(id), day);
      assert.equal(after.calls, used.calls + result.usage.calls, "the world paid for every call");
      const key = await deps.storage.usage.spend(keySubject("k1"), "total");
      assert.equal(key.calls, result.usage.calls, "and so did the key");
    });
  }
});

Deno.test("tickWorld() with a repeated tick id makes no model call and logs nothing new", async () => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const id = await makeTown(deps);
  const first = await tickWorld(deps, id, { tickId: "same" });
  const count = calls.length;
  const events = (await deps.storage.events.read(id, 0, 1000)).length;
  assert.deepEqual(await tickWorld(deps, id, { tickId: "same" }), first);
  assert.equal(calls.length, count);
  assert.equal((await deps.storage.events.read(id, 0, 1000)).length, events);
});

Deno.test("tickWorld() lets two agents who meet decide once, and objects changed by others trigger a reaction", async (t) => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const id = await makeTown(deps);
  await tickWorld(deps, id, { tickId: "t0" }); // everyone gets a place; Eddy and John share a house

  await t.step("the pair who first see each other makes one reaction call", async () => {
    const before = calls.length;
    const result = await tickWorld(deps, id, { tickId: "t1" });
    const reactions = calls.slice(before).filter((c) => c.kind === "reaction");
    assert.deepEqual(reactions.map((c) => c.agentId), ["eddy"], "the id that sorts first decides");
    const eddy = result.steps.find((s) => s.agentId === "eddy")!;
    // The offline model talks to a named agent who is free: John is getting up, so they talk.
    assert.equal(eddy.reacted, "talk");
    assert.equal(typeof eddy.conversationId, "string");
    const events = await eventsOf(deps, id, "t1");
    assert.ok(events.some((e) => e.type === "reaction" && e.agentId === "eddy"));
    const talks = events.filter((e) => e.type === "conversation");
    assert.equal(talks.length, 1, "one conversation for the pair, not one each");
    assert.equal(talks[0].conversationId, eddy.conversationId);
    assert.deepEqual(talks[0].participants, ["eddy", "john"]);
    const john = result.steps.find((s) => s.agentId === "john")!;
    assert.equal(john.reacted, undefined, "John does not decide a second time");
  });

  await t.step("a stove someone sets burning makes the agent in that area react", async () => {
    const isabella = (await loadAgent(deps, { worldId: id, agentId: "isabella" as AgentId })).value;
    assert.match(isabella.location ?? "", /^Hobbs Cafe/);
    await tickWorld(deps, id, { tickId: "t2" }); // settle: nothing of the cafe's objects is new
    await setObjectState(deps, id, { path: "Hobbs Cafe:kitchen:stove", state: "burning" });
    const before = calls.length;
    const result = await tickWorld(deps, id, { tickId: "t3" });
    const mine = calls.slice(before).filter((c) =>
      c.kind === "reaction" && c.agentId === "isabella"
    );
    assert.equal(mine.length, 1);
    const step = result.steps.find((s) => s.agentId === "isabella")!;
    assert.equal(step.reacted, "react");
    const seen = await deps.storage.memories.list(
      { worldId: id, agentId: "isabella" as AgentId },
      { kind: "observation", limit: 50, order: "desc" },
    );
    assert.ok(
      seen.memories.some((m) =>
        m.description === "the stove in the kitchen of Hobbs Cafe is burning"
      ),
    );
  });
});

Deno.test("tickWorld() records a failing agent as an agent_error; the others step and the clock advances once", async () => {
  const { model } = recordingModel("john");
  await using deps = await makeTestDeps({ model });
  const id = await makeTown(deps, { residents: RESIDENTS });
  const result = await tickWorld(deps, id, { tickId: "f" });
  const john = result.steps.find((s) => s.agentId === "john")!;
  assert.match(john.error ?? "", /Cannot reach the model/);
  for (const other of result.steps.filter((s) => s.agentId !== "john")) {
    assert.equal(other.error, undefined);
    assert.notEqual(other.action, null);
  }
  assert.equal(result.clock.now, "2023-02-13T07:00:00");
  const events = await eventsOf(deps, id, "f");
  assert.equal(events[0].failed, 1);
  const errors = events.filter((e) => e.type === "agent_error");
  assert.deepEqual(errors.map((e) => [e.agentId, e.code]), [["john", "model_unavailable"]]);
  assert.deepEqual(await tickWorld(deps, id, { tickId: "f" }), result);
  assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:00:00");
});

Deno.test("tickWorld() lets sleeping agents perceive nothing and costs no call while all sleep", async () => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const id = await makeTown(deps, { startTime: "2023-02-13T01:50:00" });
  await tickWorld(deps, id, { tickId: "night-0" }); // day plans; everyone goes to bed
  const before = calls.length;
  const result = await tickWorld(deps, id, { tickId: "night-1" });
  assert.deepEqual(calls.slice(before), []);
  for (const step of result.steps) {
    assert.equal(step.perceived, 0);
    assert.match(step.action ?? "", /sleep/);
  }
});
