import assert from "node:assert/strict";
import { inAgentTransaction } from "../../../_helpers/agent_transaction.ts";
import { type Agent } from "../../../../src/domain/agent/agent.ts";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { agentSummary } from "../../../../src/app/cognition/agent_summary.ts";
import { currentAction, makeDayPlan, replanFrom } from "../../../../src/app/cognition/planning.ts";
import type { DayPlan, PlannedAction } from "../../../../src/domain/plan/plan.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import { addMinutes, gameMinutes, type GameTime } from "../../../../src/domain/time/game_time.ts";
import { Environment, listPaths } from "../../../../src/domain/world/environment.ts";
import { replaceEnvironment } from "../../../../src/app/world/environment_store.ts";
import { CreateWorldInput, type World } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";
import { PLANNING_TOWN } from "../../cognition/_planning_town_fixture.ts";

const TOWN = Environment.parse(PLANNING_TOWN);

async function town(deps: Deps, withEnvironment = true): Promise<{ world: World; agent: Agent }> {
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ name: "Smallville", startTime: "2023-02-13T07:00:00" }),
  );
  if (withEnvironment) await replaceEnvironment(deps, world.id as WorldId, TOWN);
  const { agent } = await createAgent(deps, world.id as WorldId, {
    id: "isabella" as Agent["id"],
    name: "Isabella Rodriguez",
    description: "Isabella Rodriguez runs Hobbs Cafe; she is planning a Valentine's Day party",
    ...(withEnvironment ? { home: "Isabella's apartment", workplace: "Hobbs Cafe" } : {}),
  });
  return { world, agent };
}

const at = (hhmm: string) => `2023-02-13T${hhmm}:00` as GameTime;
const minutes = (a: { start: string; end: string }) => gameMinutes(a.end) - gameMinutes(a.start);

function assertContiguous(steps: readonly { start: string; end: string }[], what: string): void {
  steps.forEach((s, i) => {
    assert.ok(s.start < s.end, `${what} ${i} has a positive length`);
    if (i > 0) assert.equal(s.start, steps[i - 1].end, `${what} ${i} starts where ${i - 1} ends`);
  });
}

/** What the agent is doing at `time`, read (and planned where due) in one transaction. */
function actionAt(deps: Deps, who: { world: World; agent: Agent }, time: GameTime) {
  return inAgentTransaction(deps, who, (tx) => currentAction(deps, tx, { at: time }));
}

function chunkOf(plan: DayPlan, action: PlannedAction) {
  const item = plan.items.find((i) => i.start <= action.start && action.end <= i.end)!;
  return item.chunks!.find((c) => c.start <= action.start && action.end <= c.end)!;
}

async function storedPlan(deps: Deps, world: World, date = "2023-02-13"): Promise<DayPlan> {
  const doc = await deps.storage.documents.get<DayPlan>({
    collection: "plans",
    scope: world.id,
    id: `isabella:${date}`,
  });
  return doc!.value;
}

Deno.test("makeDayPlan() makes 5–8 ordered items in known areas with one completion when the summary is cached", async () => {
  const { model, kinds } = countingModel();
  await using deps = await makeTestDeps({ model });
  const { world, agent } = await town(deps);
  await agentSummary(deps, { world, agent, at: world.clock.now });
  kinds.length = 0;

  const { plan, usage } = await makeDayPlan(deps, { world, agent }, {
    date: "2023-02-13",
  });
  assert.deepEqual(kinds, ["day_plan"], "one completion, no importance call for plan memories");
  assert.ok(usage.calls >= 1);
  assert.ok(plan.items.length >= 5 && plan.items.length <= 8);
  assertContiguous(plan.items, "item");
  assert.equal(plan.items[0].start, plan.wakeUp);
  for (const item of plan.items) {
    assert.ok(agent.knownAreas.includes(item.location), `${item.location} is known`);
    assert.equal(item.chunks, null, "nothing decomposed ahead of time");
  }
  const memories = await deps.storage.memories.list(
    { worldId: world.id as WorldId, agentId: agent.id },
    { kind: "plan", limit: 20 },
  );
  assert.equal(memories.memories.length, plan.items.length);
  for (const m of memories.memories) {
    assert.equal(m.importance, 5);
    assert.equal(m.provenance, "self");
    assert.match(m.description, /^Isabella Rodriguez's plan for Monday 2023-02-13, \d\d:\d\d–/);
  }

  const again = await makeDayPlan(deps, { world, agent }, { date: "2023-02-13" });
  assert.equal(again.plan.revision, 2, "making the plan again replaces it");
});

Deno.test("currentAction() decomposes the item in progress in one call, just in time, and caches it", async () => {
  const { model, kinds } = countingModel();
  await using deps = await makeTestDeps({ model });
  const { world, agent } = await town(deps);
  await makeDayPlan(deps, { world, agent }, { date: "2023-02-13" });
  kinds.length = 0;

  const first = await actionAt(deps, { world, agent }, at("09:20"));
  assert.deepEqual(kinds, ["item_plan"], "one call for the item's hours and their actions");
  const action = first.action!;
  assert.ok(minutes(action) >= 5 && minutes(action) <= 60);
  assert.ok(action.start <= at("09:20") && at("09:20") < action.end);
  assert.ok(listPaths(TOWN, agent.knownAreas).includes(action.location), action.location);
  assert.match(action.emoji, /\p{Extended_Pictographic}/u);

  const plan = await storedPlan(deps, world);
  const item = plan.items.find((i) => i.chunks !== null)!;
  assert.equal(plan.items.filter((i) => i.chunks !== null).length, 1, "only the item in progress");
  assertContiguous(item.chunks!, "chunk");
  for (const c of item.chunks!) {
    assertContiguous(c.actions!, "action");
    assert.deepEqual([c.actions![0].start, c.actions!.at(-1)!.end], [c.start, c.end]);
  }
  assert.equal(item.chunks![0].start, item.start);
  assert.equal(item.chunks!.at(-1)!.end, item.end);
  const chunk = chunkOf(plan, action);
  assertContiguous(chunk.actions!, "action");
  assert.equal(chunk.actions![0].start, chunk.start);
  assert.equal(chunk.actions!.at(-1)!.end, chunk.end);

  kinds.length = 0;
  const same = await actionAt(deps, { world, agent }, at("09:50"));
  assert.deepEqual(kinds, [], "the same hour is cached");
  assert.equal(same.usage.calls, 0);
  await actionAt(deps, { world, agent }, at("10:05"));
  assert.deepEqual(kinds, [], "the next hour of the same item is decomposed already");
});

Deno.test("currentAction() over a 16-hour waking day queried every 15 minutes makes one completion per item", async () => {
  const { model, kinds } = countingModel();
  await using deps = await makeTestDeps({ model });
  const { world, agent } = await town(deps);
  await agentSummary(deps, { world, agent, at: world.clock.now });
  kinds.length = 0;

  const seen: PlannedAction[] = [];
  for (let t = at("07:00"); t < at("23:00"); t = addMinutes(t, 15)) {
    const { action } = await actionAt(deps, { world, agent }, t);
    assert.ok(action, t);
    assert.ok(minutes(action) >= 5 && minutes(action) <= 60, `${t}: ${minutes(action)} minutes`);
    assert.ok(action.start <= t && t < action.end, t);
    seen.push(action);
  }
  const count = (kind: string) => kinds.filter((k) => k === kind).length;
  assert.equal(count("day_plan"), 1);
  const plan = await storedPlan(deps, world);
  const long = plan.items.filter((i) => minutes(i) > 60);
  assert.equal(count("item_plan"), long.length, "one per broad item longer than an hour");
  assert.equal(long.length, 3, "work before and after lunch, the evening's hobby");
  for (const item of plan.items.filter((i) => minutes(i) <= 60)) {
    assert.deepEqual(
      item.chunks?.map((c) => [c.start, c.end, c.description]),
      [[item.start, item.end, item.description]],
      "an item of an hour or less is its own chunk, without a call",
    );
  }
  const short = plan.items.filter((i) => minutes(i) <= 60 && i.start < at("23:00"));
  assert.equal(count("actions"), short.length, "one per item of an hour or less");
  assert.equal(kinds.length, 1 + plan.items.filter((i) => i.start < at("23:00")).length);
  assert.ok(kinds.length <= 12, `${kinds.length} completions, and nothing else (summary cached)`);
  for (const action of seen) {
    const chunk = chunkOf(plan, action);
    assert.ok(chunk, `${action.start} lies inside an hour chunk`);
  }

  kinds.length = 0;
  const night = await actionAt(deps, { world, agent }, at("03:10"));
  assert.equal(night.action!.description, "sleeping");
  assert.equal(night.action!.location, "Isabella's apartment:bedroom:bed");
  assert.deepEqual([night.action!.start, night.action!.end], [at("03:00"), at("04:00")]);
  const late = await actionAt(deps, { world, agent }, at("23:40"));
  assert.equal(late.action!.description, "sleeping");
  assert.equal(late.action!.end, "2023-02-14T00:00:00");
  assert.deepEqual(kinds, [], "sleeping costs nothing");
});

Deno.test("replanFrom() keeps the morning, cuts the hour in progress and replaces the rest", async () => {
  const { model, kinds } = countingModel();
  await using deps = await makeTestDeps({ model });
  const { world, agent } = await town(deps);
  await makeDayPlan(deps, { world, agent }, { date: "2023-02-13" });
  const morning = (await actionAt(deps, { world, agent }, at("10:20"))).action!;
  const before = await storedPlan(deps, world);
  kinds.length = 0;

  const { plan } = await replanFrom(deps, { world, agent }, {
    from: at("10:40"),
    reason: "talked with Maria about the party",
  });
  assert.deepEqual(kinds, ["day_plan"], "one call for the rest of the day");
  assert.equal(plan.revision, before.revision + 1);
  assertContiguous(plan.items, "item");
  const kept = plan.items.filter((i) => i.end <= at("10:40"));
  assert.deepEqual(kept.slice(0, -1), before.items.filter((i) => i.end <= at("10:40")));
  const cut = kept.at(-1)!;
  assert.equal(cut.end, at("10:40"), "the item in progress ends at the re-plan");
  assert.equal(cut.chunks!.at(-1)!.end, at("10:40"));
  assert.equal(cut.chunks!.at(-1)!.actions!.at(-1)!.end, at("10:40"));
  const fresh = plan.items.filter((i) => i.start >= at("10:40"));
  assert.equal(fresh[0].start, at("10:40"));
  assert.match(fresh[0].description, /Maria about the party/);
  assert.ok(fresh.every((i) => i.chunks === null));
  assert.deepEqual(plan.replans, [{
    from: at("10:40"),
    reason: "talked with Maria about the party",
  }]);

  kinds.length = 0;
  const again = await actionAt(deps, { world, agent }, at("10:20"));
  assert.deepEqual(again.action, morning, "the morning's actions stay cached");
  assert.deepEqual(kinds, []);
  await actionAt(deps, { world, agent }, at("10:50"));
  // The first new item (half an hour for what came up) is its own chunk: only its actions.
  assert.deepEqual(kinds, ["actions"], "the new rest is decomposed afresh");
});

Deno.test("replanFrom() cuts at the start of an action less than 5 minutes old", async () => {
  await using deps = await makeTestDeps();
  const { world, agent } = await town(deps);
  await actionAt(deps, { world, agent }, at("10:00"));
  const { plan } = await replanFrom(deps, { world, agent }, {
    from: at("10:32"),
    reason: "the stove caught fire",
  });
  const fresh = plan.items.find((i) => i.description.includes("stove caught fire"))!;
  assert.equal(fresh.start, at("10:30"), "the 10:30 action had run 2 minutes: cut before it");
  for (const item of plan.items) {
    for (const chunk of item.chunks ?? []) {
      for (const a of chunk.actions ?? []) assert.ok(minutes(a) >= 5, `${a.start} too short`);
    }
  }
});

Deno.test("currentAction() records the action on the agent, except when looking back", async () => {
  await using deps = await makeTestDeps();
  const { world, agent } = await town(deps);
  const scope = { worldId: world.id as WorldId, agentId: agent.id };
  const { action } = await actionAt(deps, { world, agent }, at("09:20"));
  const stored = (await loadAgent(deps, scope)).value;
  assert.equal(stored.action, action!.description);
  assert.equal(stored.location, action!.location);

  const later: World = { ...world, clock: { ...world.clock, now: at("12:00") } };
  await actionAt(deps, { world: later, agent: stored }, at("07:10"));
  assert.equal((await loadAgent(deps, scope)).value.action, action!.description);
});

Deno.test("planning works in a world without an environment: locations are the current one or unknown", async () => {
  await using deps = await makeTestDeps();
  const { world, agent } = await town(deps, false);
  assert.deepEqual(agent.knownAreas, []);
  const { plan } = await makeDayPlan(deps, { world, agent }, { date: "2023-02-13" });
  assert.ok(plan.items.every((i) => i.location === "unknown"));
  const { action } = await actionAt(deps, { world, agent }, at("09:20"));
  assert.equal(action!.location, "unknown");
  const night = await actionAt(deps, { world, agent }, at("02:00"));
  assert.equal(night.action!.location, "unknown");
});
