import assert from "node:assert/strict";
import {
  consumeTicksFromKv,
  simulateTowns,
  townsCacheBytes,
  townWorldId,
} from "../../cli/_simulate_towns.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import type { SimulationProgress } from "../../src/eval/simulate_town.ts";
import type { TickMessage } from "../../src/ports/tick_queue.ts";
import { tickWorld } from "../../src/app/simulation/tick_world.ts";
import { getWorld } from "../../src/app/world/world_store.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { ConflictError, LeaseLostError } from "../../src/domain/errors.ts";
import { addMinutes, type GameTime } from "../../src/domain/time/game_time.ts";
import { TOWNS } from "../../towns/mod.ts";

Deno.test("simulateTowns() runs each town in its own world, every tick through the queue", async () => {
  await using deps = await makeTestDeps();
  deps.model = new OfflineLanguageModel({ onUsage: (r) => deps.storage.usage.add(r) });
  await using consumer = await consumeTicksFromKv(deps);
  const { queue } = consumer;
  const sent: TickMessage[] = [];
  const send = queue.send.bind(queue);
  queue.send = (messages, options) => {
    sent.push(...messages);
    return send(messages, options);
  };
  const progress: SimulationProgress[] = [];

  const run = await simulateTowns(deps, {
    towns: 2,
    template: "smallville",
    catalog: TOWNS,
    hours: 1 / 3,
    seed: 7,
    tick: (d, worldId, options) => tickWorld(d, worldId, { ...options, queue }),
    wallClock: () => performance.now(),
    onProgress: (p) => progress.push(p),
  });

  assert.deepEqual(run.towns.map((s) => s.seed), [7, 8], "town n gets seed + n - 1");
  for (const n of [1, 2]) {
    const worldId = townWorldId({ template: "smallville", seed: 7 }, n);
    assert.equal(worldId, `smallville-seed-7-town-00${n}`);
    const world = await getWorld(deps, worldId as never);
    assert.equal(world.clock.now, "2023-02-13T07:20:00", `${worldId} advanced two ticks`);
    const steps = sent.filter((m) => m.worldId === worldId && m.kind === "step");
    const ticks = new Set(steps.map((m) => m.tickId));
    assert.equal(ticks.size, 2, `${worldId}: both ticks were enqueued`);
  }
  assert.equal(run.total.towns, 2);
  assert.equal(run.total.agents, 50);
  assert.equal(run.total.steps, 100, "25 agents × 2 ticks × 2 towns");
  assert.equal(run.total.stepErrors, 0);
  assert.equal(run.total.modelCalls, run.towns[0].modelCalls + run.towns[1].modelCalls);
  assert.ok(run.total.modelCalls > 0);
  const last = progress.at(-1)!;
  assert.equal(last.minutesDone, 20);
  assert.equal(last.ticks, 4, "progress sums the towns' ticks");
  assert.equal(last.usage.calls, run.total.modelCalls);
});

Deno.test("simulateTowns() asks a busy tick again with the same tick id, and one whose lease was lost", async () => {
  await using deps = await makeTestDeps();
  // The retries' waits are recorded and skipped; other waits (lease renewals) really wait.
  const slept: number[] = [];
  const sleep = deps.sleep;
  deps.sleep = (ms, signal) => {
    if (ms !== 5_000 && ms !== 1_000) return sleep(ms, signal);
    slept.push(ms);
    return Promise.resolve();
  };
  const asked: string[] = [];
  const failures = [
    new ConflictError("busy", { details: { retryAfterSeconds: 5 } }),
    new LeaseLostError("tick:w"),
  ];
  let now = "2023-02-13T07:00:00" as GameTime;
  const run = await simulateTowns(deps, {
    towns: 1,
    template: "smallville",
    catalog: TOWNS,
    hours: 1 / 6,
    tick: (_d, _worldId, options) => {
      asked.push(options.tickId!);
      const failure = failures.shift();
      if (failure) return Promise.reject(failure);
      now = addMinutes(now, options.minutes);
      return Promise.resolve({ clock: { now }, steps: [] });
    },
    wallClock: () => performance.now(),
  });
  assert.equal(asked.length, 3);
  assert.equal(new Set(asked).size, 1, "the same tick id each time");
  assert.deepEqual(slept, [5_000, 1_000]);
  assert.equal(run.total.busyRetries, 2);
  await assert.rejects(
    simulateTowns(deps, {
      towns: 1,
      firstTown: 2,
      template: "smallville",
      catalog: TOWNS,
      hours: 1 / 6,
      tick: () => Promise.reject(new ConflictError("a tick left its clock")),
      wallClock: () => performance.now(),
    }),
    /a tick left its clock/,
    "other conflicts are not retried",
  );
});

Deno.test("townsCacheBytes() keeps every agent of a large run cached, never below the default", () => {
  const mib = 2 ** 20;
  assert.equal(townsCacheBytes(undefined), 256 * mib);
  assert.equal(townsCacheBytes(4), 256 * mib);
  // 200 towns of 25 agents at ~0.55 MB each after a day: ~2.7 GB, within the budget.
  assert.ok(townsCacheBytes(200) >= 200 * 25 * 0.55e6 * 1.5);
});

Deno.test("simulateTowns() has at most ticksAtOnce towns ticking, so no tick waits out its deadline behind the others", async () => {
  await using deps = await makeTestDeps();
  deps.model = new OfflineLanguageModel({ onUsage: (r) => deps.storage.usage.add(r) });
  await using consumer = await consumeTicksFromKv(deps);
  let ticking = 0, most = 0;
  const run = await simulateTowns(deps, {
    towns: 3,
    ticksAtOnce: 2,
    template: "smallville",
    catalog: TOWNS,
    hours: 1 / 3,
    seed: 7,
    tick: async (d, worldId, options) => {
      most = Math.max(most, ++ticking);
      try {
        return await tickWorld(d, worldId, { ...options, queue: consumer.queue });
      } finally {
        ticking--;
      }
    },
    wallClock: () => performance.now(),
  });
  assert.equal(most, 2);
  assert.equal(run.total.steps, 150, "25 agents × 2 ticks × 3 towns, all taken");
  assert.equal(run.total.stepErrors, 0);
});
