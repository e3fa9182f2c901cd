import assert from "node:assert/strict";
import type { WorldId } from "../../../../src/domain/ids.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import {
  consumeTickMessage,
  readTick,
  startTick,
  tickWorld,
} from "../../../../src/app/simulation/tick_world.ts";
import { runScheduledTick } from "../../../../src/app/simulation/scheduled_tick.ts";
import { getWorld, updateWorld } from "../../../../src/app/world/world_store.ts";
import { KvTickQueue } from "../../../../lib/queues/kv_tick_queue.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { makeTown, recordingModel } from "../../domain/_town_fixture.ts";
import { HeldQueue } from "../../simulation/_held_queue.ts";

async function eventCount(deps: Deps, worldId: WorldId): Promise<number> {
  return (await deps.storage.events.read(worldId, 0, 100_000)).length;
}

Deno.test("a queued tick runs its steps as messages; delivering every step message twice changes nothing", async () => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  const planned = await startTick(deps, id, { tickId: "q1", queue });
  assert.equal(planned.status, "queued");
  assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T06:50:00", "not stepped yet");
  assert.deepEqual(await readTick(deps, id, "q1"), { tickId: "q1", status: "running" });
  const steps = queue.take("step");
  assert.ok(steps.length >= 1 && steps.length <= 3, `${steps.length} step messages`);
  assert.equal(queue.take("close").length, 1, "a delayed check closes a tick whose steps stall");

  for (const m of steps) await consumeTickMessage(deps, m, queue);
  const done = await readTick(deps, id, "q1");
  assert.equal(done.status, "done");
  assert.equal(done.result!.steps.length, 3);
  assert.ok(done.result!.steps.every((s) => s.error === undefined));
  assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:00:00");

  const callsAfter = calls.length;
  const events = await eventCount(deps, id);
  const memories = await deps.storage.memories.list(
    { worldId: id, agentId: "john" as never },
    { limit: 1000, order: "asc" },
  );
  // Redelivery of every step message (and the close) after the tick closed: nothing changes.
  for (const m of [...steps, ...steps]) await consumeTickMessage(deps, m, queue);
  await consumeTickMessage(deps, { kind: "close", worldId: id, tickId: "q1" }, queue);
  assert.equal(calls.length, callsAfter, "no model call");
  assert.equal(await eventCount(deps, id), events, "no event");
  assert.equal(
    (await deps.storage.memories.list({ worldId: id, agentId: "john" as never }, {
      limit: 1000,
      order: "asc",
    })).memories.length,
    memories.memories.length,
    "no memory",
  );
  assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:00:00");
  assert.equal(queue.sent.length, 0, "nothing more enqueued");
});

Deno.test("a step message delivered twice while the tick is open steps its agents once", async () => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await startTick(deps, id, { tickId: "q2", queue });
  const steps = queue.take("step");
  // The first message twice (before the others report), then the rest.
  await consumeTickMessage(deps, steps[0], queue);
  const afterFirst = calls.length;
  await consumeTickMessage(deps, steps[0], queue);
  assert.equal(calls.length, afterFirst, "the duplicate made no model call");
  for (const m of steps.slice(1)) await consumeTickMessage(deps, m, queue);
  const result = (await readTick(deps, id, "q2")).result!;
  const tickEvents = (await deps.storage.events.read(id, 0, 10_000)).filter((e) =>
    e.type === "tick"
  );
  assert.equal(tickEvents.length, 1);
  assert.equal(result.steps.length, 3);
});

Deno.test("a failing step (the model down for one agent) is retried with back-off, then reported as agent_error; the tick still closes", async () => {
  const { model } = recordingModel("john");
  await using deps = await makeTestDeps({ model });
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await startTick(deps, id, { tickId: "q3", queue, maxAttempts: 3 });
  let pending = queue.take("step");
  const delays: number[] = [];
  for (let round = 0; pending.length > 0 && round < 10; round++) {
    for (const m of pending) await consumeTickMessage(deps, m, queue);
    delays.push(...queue.sent.filter((s) => s.message.kind === "step").map((s) => s.delayMs));
    pending = queue.take("step");
  }
  assert.deepEqual(delays, [1_000, 4_000], "two retries, each waiting longer");
  const result = (await readTick(deps, id, "q3")).result!;
  const john = result.steps.find((s) => s.agentId === "john")!;
  assert.ok(john.error, "john's step reported as failed");
  assert.ok(result.steps.filter((s) => s.agentId !== "john").every((s) => !s.error));
  const errors = (await deps.storage.events.read(id, 0, 10_000)).filter((e) =>
    e.type === "agent_error"
  );
  assert.equal(errors.length, 1);
  assert.equal(errors[0].agentId, "john");
});

Deno.test("a tick whose steps never report closes at its deadline with the stragglers failed; another tick id is refused at once meanwhile", async () => {
  await using deps = await makeTestDeps();
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await startTick(deps, id, { tickId: "lost", queue, deadlineMs: 60_000 });
  queue.take("step"); // lost deliveries
  const started = performance.now();
  await assert.rejects(
    startTick(deps, id, { tickId: "other", queue }),
    (e: Error & { code?: string; details?: { retryAfterSeconds?: number } }) =>
      e.code === "conflict" && e.details?.retryAfterSeconds !== undefined,
  );
  assert.ok(performance.now() - started < 3_000, "answered at once, not after a long wait");
  // The periodic check before the deadline sends the lost steps again and checks later.
  const [close] = queue.take("close");
  await consumeTickMessage(deps, close, queue);
  assert.ok(queue.take("step").length >= 1, "lost steps sent again");
  assert.equal(queue.take("close").length, 1);
  // Past the deadline: closed, every agent failed, the clock moved, the world free again.
  queue.clock += 61_000;
  await consumeTickMessage(deps, close, queue);
  const result = (await readTick(deps, id, "lost")).result!;
  assert.equal(result.steps.length, 3);
  assert.ok(result.steps.every((s) => s.error));
  assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:00:00");
  const next = await startTick(deps, id, { tickId: "other", queue });
  assert.equal(next.status, "queued");
});

Deno.test("cron with several worlds only plans and enqueues (skipping paused and manual worlds); the steps run from the queue", async () => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const queue = new HeldQueue();
  const worlds = [
    await makeTown(deps, { id: "a" }),
    await makeTown(deps, { id: "b" }),
    await makeTown(deps, { id: "c" }),
  ];
  const paused = await makeTown(deps, { id: "p" });
  await updateWorld(deps, paused, { clock: { paused: true } });
  const manual = await makeTown(deps, { id: "m" });
  await updateWorld(deps, manual, { clock: { mode: "manual" } });
  const before = calls.length;
  const run = await runScheduledTick(deps, Date.UTC(2026, 10, 22, 10, 0, 0), { queue });
  assert.deepEqual(run.ticks.map((t) => [t.worldId, t.queued]), [
    ["a", true],
    ["b", true],
    ["c", true],
  ]);
  const planCalls = calls.slice(before);
  assert.ok(
    planCalls.every((c) => c.agentId === undefined),
    "the cron made no agent's call: it only ran the batched preparation",
  );
  for (const w of worlds) {
    assert.equal((await getWorld(deps, w)).clock.now, "2023-02-13T06:50:00");
  }
  for (const m of queue.take("step")) await consumeTickMessage(deps, m, queue);
  for (const w of worlds) {
    assert.equal((await getWorld(deps, w)).clock.now, "2023-02-13T07:00:00");
  }
  for (const w of [paused, manual]) {
    assert.equal((await getWorld(deps, w)).clock.now, "2023-02-13T06:50:00", "skipped");
  }
  // A scheduled tick of a manual world is refused on the queued path too; a manual one runs.
  await assert.rejects(
    startTick(deps, manual, { tickId: "cron-like", queue, scheduled: true }),
    (e: Error & { code?: string }) => e.code === "conflict",
  );
  assert.equal((await startTick(deps, manual, { tickId: "by-hand", queue })).status, "queued");
});

Deno.test("tickWorld() through Deno KV queues waits for the close and answers like the in-process tick", async () => {
  await using deps = await makeTestDeps();
  const kv = await Deno.openKv(":memory:");
  const queue = new KvTickQueue(kv);
  const listening = queue.listen((m) => consumeTickMessage(deps, m, queue));
  try {
    const id = await makeTown(deps);
    const result = await tickWorld(deps, id, { tickId: "kv1", queue });
    assert.equal(result.steps.length, 3);
    assert.ok(result.steps.every((s) => !s.error), JSON.stringify(result.steps));
    assert.equal(result.clock.now, "2023-02-13T07:00:00");
    assert.deepEqual(
      await tickWorld(deps, id, { tickId: "kv1", queue }),
      result,
      "same id, same result",
    );
  } finally {
    await queue.stop();
    kv.close();
    await listening.catch(() => {});
  }
});

Deno.test("a queued tick of a world whose daily budget is spent coasts in process: no messages, no model calls, one budget.exhausted event", async () => {
  await using deps = await makeTestDeps();
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await updateWorld(deps, id, { settings: { budget: { callsPerDay: 1 } } });
  await deps.storage.usage.addSpend(`world:${id}`, "2026-11-23", {
    spend: { calls: 1, tokens: 10 },
  });
  const before = await getWorld(deps, id);
  const first = await startTick(deps, id, { tickId: "b1", day: "2026-11-23", queue });
  assert.equal(first.status, "done");
  assert.equal(queue.sent.length, 0, "nothing was enqueued");
  const result = first.status === "done" ? first.result : undefined;
  assert.equal(result?.budgetExhausted, true);
  assert.equal(result?.usage.calls, 0);
  assert.equal(result?.steps.length, 3);
  assert.notEqual(result?.clock.now, before.clock.now, "the clock moved");
  // The cron's queued path coasts the same way, and the day's event is logged once.
  const cron = await runScheduledTick(deps, Date.parse("2026-11-23T10:00:00Z"), { queue });
  assert.equal(cron.ticks.find((t) => t.worldId === id)?.queued, undefined);
  assert.equal(queue.sent.length, 0);
  const events = await deps.storage.events.read(id, 0, 100_000);
  assert.equal(events.filter((e) => e.type === "budget.exhausted").length, 1);
  assert.equal((await readTick(deps, id, "b1")).status, "done");
});
