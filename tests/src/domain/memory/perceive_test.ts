import assert from "node:assert/strict";
import {
  OfflineLanguageModel,
  type OfflineResponder,
} from "../../../../lib/offline/offline_language_model.ts";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { perceive } from "../../../../src/app/perceive.ts";
import type { AgentScope, WorldId } from "../../../../src/domain/ids.ts";
import { withAgent } from "../../../../src/app/transaction.ts";
import { updateAgent } from "../../../../src/app/lifecycle/update_agent.ts";
import { type PerceiveInput } from "../../../../src/domain/memory/perceive.ts";
import { perceiveHeld } from "../../../../src/app/memory/perceive_held.ts";
import type { LanguageModel } from "../../../../src/ports/language_model.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";

/** The offline model scoring every observation `score`, recording each prompt kind. */
function scoring(score: number) {
  const responders: Record<string, OfflineResponder> = {
    importance: (input) => ({
      scores: (input as { observations: string[] }).observations.map(() => score),
    }),
  };
  return countingModel(new OfflineLanguageModel({ responders }));
}

async function town(
  score: number,
  settings: Record<string, unknown>,
  wrap: (model: LanguageModel) => LanguageModel = (model) => model,
) {
  const { model, kinds } = scoring(score);
  const deps = await makeTestDeps({ model: wrap(model) });
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ name: "T", startTime: "2023-02-13T07:00:00", settings }),
  );
  const worldId = world.id as WorldId;
  const { agent } = await createAgent(deps, worldId, {
    name: "Klaus Mueller",
    description: "Klaus Mueller is a student of sociology at Oak Hill College",
  });
  kinds.length = 0;
  const scope: AgentScope = { worldId, agentId: agent.id };
  return { deps, scope, kinds };
}

/** Memory's perceive in a transaction of its own, without the automatic reflection. */
async function perceiveObservations(
  deps: Parameters<typeof perceiveHeld>[0] & Parameters<typeof withAgent>[0],
  scope: AgentScope,
  input: PerceiveInput,
) {
  return await withAgent(deps, { scope }, (tx) => perceiveHeld(deps, tx, input.observations));
}

const observations = [
  { text: "Maria Lopez won a national physics prize", at: "2023-02-13T08:00:00" },
  { text: "the library fire alarm is ringing", at: "2023-02-13T09:30:00" },
];

Deno.test("perceiveObservations() reports reflectionDue at the threshold and never reflects itself", async () => {
  const { deps, scope, kinds } = await town(6, { reflectionThreshold: 12, autoReflect: true });
  await using _ = deps;
  const first = await perceiveObservations(deps, scope, { observations: observations.slice(0, 1) });
  assert.equal(first.result.importanceSinceReflection, 6);
  assert.equal(first.result.reflectionDue, false);
  const second = await perceiveObservations(deps, scope, { observations: observations.slice(1) });
  assert.equal(second.result.importanceSinceReflection, 12);
  assert.equal(second.result.reflectionDue, true);
  assert.equal(second.agent.importanceSinceReflection, 12, "The agent as the perceive left it");
  // Memory stored and scored, and made no reflection call even with autoReflect on.
  assert.deepEqual(kinds, ["importance", "importance"]);
  assert.equal((await loadAgent(deps, scope)).value.importanceSinceReflection, 12);
});

Deno.test("perceiveObservations() stores a repeated eventId once and counts its importance once", async () => {
  const { deps, scope } = await town(4, { reflectionThreshold: 100 });
  await using _ = deps;
  const input = { observations: [{ ...observations[0], eventId: "e-1" }] };
  const first = await perceiveObservations(deps, scope, input);
  const again = await perceiveObservations(deps, scope, input);
  assert.deepEqual(first.result.outcomes, ["created"]);
  assert.deepEqual(again.result.outcomes, ["existing"]);
  assert.equal(again.result.memories[0].id, first.result.memories[0].id);
  assert.equal(again.result.importanceSinceReflection, 4);
});

Deno.test("perceive() reflects when perceiving made it due and autoReflect is on, and only then", async () => {
  {
    const { deps, scope, kinds } = await town(6, { reflectionThreshold: 12, autoReflect: true });
    await using _ = deps;
    const below = await perceive(deps, scope, {
      observations: observations.slice(0, 1),
    });
    assert.equal(below.reflectionDue, false);
    assert.deepEqual(below.reflections, []);
    assert.ok(!kinds.includes("reflection_questions"));
    const due = await perceive(deps, scope, {
      observations: observations.slice(1),
    });
    assert.equal(due.reflectionDue, true);
    assert.ok(kinds.includes("reflection_questions"));
    assert.ok(due.reflections.length > 0, "the due reflection stored insights");
    // It reflected at the latest observation's time.
    assert.ok(due.reflections.every((r) => r.createdAt === "2023-02-13T09:30:00"));
    assert.equal((await loadAgent(deps, scope)).value.importanceSinceReflection, 0);
  }
  {
    const { deps, scope, kinds } = await town(6, { reflectionThreshold: 6, autoReflect: false });
    await using _ = deps;
    const due = await perceive(deps, scope, {
      observations: observations.slice(0, 1),
    });
    assert.equal(due.reflectionDue, true);
    assert.deepEqual(due.reflections, []);
    assert.deepEqual(kinds, ["importance"]);
  }
});

Deno.test("perceive() keeps an agent PATCH that lands while it runs, and its own counters", async () => {
  let started!: () => void;
  const scoring = new Promise<void>((resolve) => (started = resolve));
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  // Once armed, the importance call is held open until the PATCH has landed.
  let armed = false;
  const held = (inner: LanguageModel): LanguageModel => ({
    info: inner.info,
    async complete(prompt, attribution) {
      if (armed && prompt.kind === "importance") {
        started();
        await gate;
      }
      return await inner.complete(prompt, attribution);
    },
  });
  const { deps, scope } = await town(5, { reflectionThreshold: 100 }, held);
  await using _ = deps;
  const before = await deps.storage.memories.count(scope);
  armed = true;
  const running = perceive(deps, scope, { observations: observations.slice(0, 1) });
  await scoring;
  await updateAgent(deps, scope, { location: "Hobbs Cafe" });
  release();
  const result = await running;
  assert.equal(result.importanceSinceReflection, 5);
  assert.equal(result.memories.length, 1);
  const agent = (await loadAgent(deps, scope)).value;
  assert.equal(agent.location, "Hobbs Cafe", "The PATCH is kept");
  assert.equal(agent.importanceSinceReflection, 5, "The perceive's counters are kept");
  assert.deepEqual(agent.pendingImportance, []);
  assert.equal(await deps.storage.memories.count(scope), before + 1);
});
