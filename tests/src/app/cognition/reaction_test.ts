import assert from "node:assert/strict";
import { inAgentTransaction, inTransaction } from "../../../_helpers/agent_transaction.ts";
import { type Agent, CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { agentSummary, invalidateSummary } from "../../../../src/app/cognition/agent_summary.ts";
import { converse } from "../../../../src/app/cognition/dialogue.ts";
import { currentAction } from "../../../../src/app/cognition/planning.ts";
import type { DayPlan } from "../../../../src/domain/plan/plan.ts";
import { decideReaction, type ObservedAgent } from "../../../../src/app/cognition/reaction.ts";
import type { AgentMoment } from "../../../../src/domain/agent/agent_context.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import type { GameTime } from "../../../../src/domain/time/game_time.ts";
import { CreateWorldInput, type World } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";

async function family(deps: Deps): Promise<{ world: World; john: Agent; eddy: Agent }> {
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ name: "Lin house", startTime: "2023-02-13T07:00:00" }),
  );
  const make = async (input: Record<string, unknown>) =>
    (await createAgent(deps, world.id as WorldId, CreateAgentInput.parse(input))).agent;
  return {
    world,
    john: await make({
      id: "john",
      name: "John Lin",
      description: "John Lin is a pharmacy shopkeeper; John Lin is Eddy Lin's father",
    }),
    eddy: await make({
      id: "eddy",
      name: "Eddy Lin",
      description: "Eddy Lin is a music student; Eddy Lin is writing a composition for class",
    }),
  };
}

/** Makes the plan and the summary the decision reads, so later counts show only its own calls. */
async function warm(deps: Deps, world: World, agent: Agent, at: GameTime): Promise<void> {
  await inAgentTransaction(deps, { world, agent }, (tx) => currentAction(deps, tx, { at }));
  await agentSummary(deps, { world, agent, at });
}

/** `decideReaction` in a transaction over the observer and the observed agent, if any. */
async function decide(
  deps: Deps,
  { world, agent, at }: AgentMoment,
  input: Omit<Parameters<typeof decideReaction>[2], "at">,
) {
  const agents = [agent, ...input.observed === undefined ? [] : [{ id: input.observed.agentId }]];
  return await inTransaction(
    deps,
    { world, agents },
    (tx) => decideReaction(deps, tx, { ...input, at }),
  );
}

const walk = ["Eddy Lin is taking a short walk around the garden"];

function eddyDoing(eddy: Agent, status: string): ObservedAgent {
  return { agentId: eddy.id, name: eddy.name, status };
}

Deno.test("decideReaction() vetoes before any model call", async (t) => {
  const { model, kinds } = countingModel();
  await using deps = await makeTestDeps({ model });
  const { world, john, eddy } = await family(deps);
  const free = eddyDoing(eddy, "taking a short walk");

  const expectVeto = async (
    veto: string,
    at: GameTime,
    observed: ObservedAgent | undefined,
    observations = walk,
  ) => {
    kinds.length = 0;
    const result = await decide(deps, { world, agent: john, at }, {
      observations,
      observed,
    });
    assert.equal(result.vetoed, veto, result.reason);
    assert.equal(result.decision, "continue");
    assert.deepEqual(kinds, [], `${veto}: no model call`);
    assert.equal(result.usage.calls, 0);
  };

  await t.step("late night (23:00–06:00) stops conversations", async () => {
    await expectVeto("late_night", "2023-02-13T23:30:00", free);
    await expectVeto("late_night", "2023-02-14T05:59:00", free);
  });
  await t.step("the observed agent is asleep", async () => {
    await expectVeto("asleep", "2023-02-13T14:00:00", eddyDoing(eddy, "sleeping"));
  });
  await t.step("the observer is asleep (its plan says so before wake-up)", async () => {
    const night = "2023-02-13T03:00:00";
    await warm(deps, world, john, night);
    await expectVeto("asleep", night, undefined, ["the stove is burning"]);
  });
  await t.step("already talking, then talked recently, then free again", async () => {
    const talk = await inTransaction(
      deps,
      { world, agents: [eddy, john] },
      (tx) => converse(deps, tx, { at: "2023-02-13T10:00:00" }),
    );
    const during = "2023-02-13T10:01:00";
    await expectVeto("already_talking", during, free);
    await expectVeto("already_talking", during, undefined, ["the stove is burning"]);
    // Cooldown: 60 game minutes (the world's default) from the end of their talk.
    await expectVeto("talked_recently", talk.endedAt, free);
    await expectVeto("talked_recently", "2023-02-13T10:59:00", free);
    const later = "2023-02-13T11:30:00";
    await warm(deps, world, john, later);
    kinds.length = 0;
    const result = await decide(deps, { world, agent: john, at: later }, {
      observations: walk,
      observed: free,
    });
    assert.equal(result.vetoed, undefined);
    assert.equal(kinds[0], "reaction");
  });
});

Deno.test("decideReaction() call budget: one fast call for a decision", async () => {
  const { model, kinds } = countingModel();
  await using deps = await makeTestDeps({ model });
  const { world, john, eddy } = await family(deps);
  const at = "2023-02-13T14:00:00";
  await warm(deps, world, john, at);
  kinds.length = 0;
  // The observation does not name Eddy, so the offline model carries on: nothing else runs.
  const result = await decide(deps, { world, agent: john, at }, {
    observations: ["the garden gate is open"],
    observed: eddyDoing(eddy, "reading"),
  });
  assert.equal(result.decision, "continue");
  assert.equal(result.vetoed, undefined);
  // 1 reaction call (fast); the summary and the plan were made before and are cached. The two
  // retrievals share one embedding call, which the local embedder makes for free.
  assert.deepEqual(kinds, ["reaction"]);
  assert.equal(result.usage.calls, 1);

  // A stale summary is kept while younger than a third of summaryRefreshHours, then remade
  // first: one more (main) call (the later hour also decomposes its plan item).
  await invalidateSummary(deps, john);
  kinds.length = 0;
  await decide(deps, { world, agent: john, at }, { observations: ["the garden gate is open"] });
  assert.deepEqual(kinds, ["reaction"]);
  kinds.length = 0;
  await decide(deps, { world, agent: john, at: "2023-02-13T22:30:00" }, {
    observations: ["the garden gate is open"],
  });
  assert.deepEqual(kinds.filter((k) => k === "agent_summary" || k === "reaction"), [
    "agent_summary",
    "reaction",
  ]);
});

Deno.test("decideReaction() talks: a conversation with the observed agent starts", async () => {
  await using deps = await makeTestDeps();
  const { world, john, eddy } = await family(deps);
  const at = "2023-02-13T16:56:00";
  const result = await decide(deps, { world, agent: john, at }, {
    observations: walk,
    observed: eddyDoing(eddy, "walking"),
  });
  assert.equal(result.decision, "talk");
  assert.equal(result.reaction, "how things are going", "the offline intent: small talk");
  assert.match(result.reason, /Eddy Lin/);
  const talk = result.conversation;
  assert.ok(talk);
  assert.deepEqual(talk.participants, ["john", "eddy"]);
  assert.equal(talk.startedAt, at);
  assert.equal(talk.topic, result.reaction);
  assert.ok(talk.lines.length >= 2);
  assert.ok(result.usage.calls >= talk.usage.calls + 1);
});

Deno.test("decideReaction() reacts: the rest of the day is re-planned from now", async () => {
  const { model, kinds } = countingModel();
  await using deps = await makeTestDeps({ model });
  const { world, john } = await family(deps);
  const at = "2023-02-13T08:30:00";
  await warm(deps, world, john, at);
  kinds.length = 0;
  const result = await decide(deps, { world, agent: john, at }, {
    observations: ["the stove is burning"],
  });
  assert.equal(result.decision, "react");
  assert.match(result.reaction ?? "", /stove is burning/);
  assert.equal(result.conversation, undefined);
  // 1 reaction call (fast) + 1 day_plan call for the re-plan (plan and summary were cached).
  assert.deepEqual(kinds, ["reaction", "day_plan"]);
  assert.equal(result.usage.calls, 2);
  const plan = await deps.storage.documents.get<DayPlan>({
    collection: "plans",
    scope: world.id,
    id: `${john.id}:2023-02-13`,
  });
  assert.deepEqual(plan?.value.replans, [{ from: at, reason: result.reaction }]);
});

Deno.test("decideReaction() refuses an agent observing itself", async () => {
  await using deps = await makeTestDeps();
  const { world, john } = await family(deps);
  await assert.rejects(
    decide(deps, { world, agent: john, at: "2023-02-13T12:00:00" }, {
      observations: walk,
      observed: {
        agentId: john.id,
        name: john.name,
        status: "idle",
      },
    }),
    (err: unknown) => err instanceof SimulacraError && err.code === "invalid_request",
  );
});
