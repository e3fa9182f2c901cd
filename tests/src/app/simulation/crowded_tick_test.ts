/**
 * Issue 27, item 2: a tick's plan grows with the world's agents, not with the square of the
 * agents sharing a place (each agent's view is worked out in its step from who was where and
 * its last look, not stored), on both backends; and a step in another process, which reads
 * the plan and every agent's last look, sees what an in-process step sees.
 */
import assert from "node:assert/strict";
import { startBackends } from "../../../_helpers/backends.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { createCrowdedWorld, measuringPlans } from "../../../_helpers/crowded_world.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import {
  consumeTickMessage,
  readTick,
  startTick,
  tickWorld,
} from "../../../../src/app/simulation/tick_world.ts";
import { HeldQueue } from "../../simulation/_held_queue.ts";

const { backends, close } = await startBackends();

/** The JSON size of the plan of a world's first tick, planned and left queued. */
async function firstPlanBytes(
  backend: (typeof backends)[number],
  options: { agents: number; crowd: number },
): Promise<number> {
  const { storage, planBytes } = measuringPlans(await backend.open());
  await using deps = await makeTestDeps({ storage });
  const id = await createCrowdedWorld(deps, `w${options.agents}-${options.crowd}`, options);
  const started = await startTick(deps, id, { tickId: "first", queue: new HeldQueue() });
  assert.equal(started.status, "queued");
  assert.equal(planBytes.length, 1);
  return planBytes[0];
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a tick's plan grows with the agents, not with the square of those sharing a place`,
    ...sanitizersFor(backend),
    fn: async () => {
      // Before: 24 in one place stored some 200 KB (every view listing every other agent),
      // 48 over 600 KB, which the embedded store refused (HTTP 413 for a `{}` tick request).
      const crowd24 = await firstPlanBytes(backend, { agents: 24, crowd: 24 });
      const crowd48 = await firstPlanBytes(backend, { agents: 48, crowd: 48 });
      const apart48 = await firstPlanBytes(backend, { agents: 48, crowd: 8 });
      assert.ok(crowd48 < 2.2 * crowd24, `${crowd24} → ${crowd48} bytes for twice the crowd`);
      assert.ok(crowd48 < 48 * 500, `${crowd48} bytes for 48 agents`);
      // Sharing a place costs a plan next to nothing more than living apart.
      assert.ok(crowd48 < 1.3 * apart48, `${apart48} bytes apart, ${crowd48} together`);
    },
  });

  Deno.test({
    name:
      `[${backend.name}] a crowded tick's steps in another process read every last look with the plan and do what in-process steps do`,
    ...sanitizersFor(backend),
    fn: async () => {
      const options = { agents: 14, crowd: 12, seed: 5 };
      await using inline = await makeTestDeps({ storage: await backend.open() });
      const inlineId = await createCrowdedWorld(inline, "crowd", options);
      const expected = await tickWorld(inline, inlineId, { tickId: "t1" });

      await using planner = await makeTestDeps({ storage: await backend.open() });
      const id = await createCrowdedWorld(planner, "crowd", options);
      const queue = new HeldQueue();
      assert.equal((await startTick(planner, id, { tickId: "t1", queue })).status, "queued");
      // Another process: the same store through another object, so nothing of the planner's
      // copy of the plan is at hand.
      const other = { ...planner, storage: measuringPlans(planner.storage).storage };
      for (const message of queue.take("step")) await consumeTickMessage(other, message, queue);
      const done = await readTick(planner, id, "t1");
      assert.equal(done.status, "done");
      const summary = (s: (typeof expected.steps)[number]) => [s.agentId, s.perceived, s.action];
      assert.deepEqual(done.result!.steps.map(summary), expected.steps.map(summary));
      const crowded = done.result!.steps.filter((s) => s.agentId < "a0012");
      // Everyone in the Plaza sees the 11 others for the first time (its objects have no state
      // yet) and attends to 3 of them (the default attentionBandwidth), worked out the same in
      // the other process; half of them decided to talk to one of the others.
      assert.ok(crowded.every((s) => s.perceived === 3), JSON.stringify(crowded));
      assert.equal(crowded.filter((s) => s.conversationId !== undefined).length, 6);
      assert.ok(done.result!.steps.every((s) => s.error === undefined));
    },
  });
}

Deno.test({
  name: "crowded tick backends close",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
