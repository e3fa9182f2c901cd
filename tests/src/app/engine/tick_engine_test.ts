import assert from "node:assert/strict";
import type { Deps } from "../../../../src/ports/deps.ts";
import {
  ConflictError,
  ModelUnavailableError,
  SimulacraError,
} from "../../../../src/domain/errors.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import { emptyUsage } from "../../../../src/domain/usage.ts";
import type { StepOutcome, TickFrame, TickSystem } from "../../../../src/app/engine/tick_engine.ts";
import { runTick } from "../../../../src/app/engine/tick_runners.ts";
import { worldTickClock } from "../../../../src/app/world/clock_store.ts";
import { createWorld, getWorld, updateWorld } from "../../../../src/app/world/world_store.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { gate } from "../../../_helpers/fake_clock.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";

interface Summary {
  unit: string;
  at: string;
  error?: string;
}

/** A system of named units; each step records when it ran, and may be told to fail or wait. */
function fakeSystem(options: {
  units?: string[];
  failing?: Set<string>;
  stepMs?: number;
  finishThrows?: boolean;
  prepareThrows?: boolean;
  sleep?: (ms: number) => Promise<void>;
  /** Each step waits for this (a test's gate) before it runs. */
  hold?: () => Promise<void>;
} = {}) {
  const stepped: { unit: string; at: string }[] = [];
  const system: TickSystem<string, { prepared: true }, Summary> = {
    clock: worldTickClock,
    units: () => Promise.resolve(options.units ?? ["a", "b", "c"]),
    unitKey: (unit) => unit,
    prepare: () => {
      if (options.prepareThrows) {
        return Promise.reject(new ModelUnavailableError("model_unavailable", "Cannot reach it"));
      }
      return Promise.resolve({
        shared: { prepared: true as const },
        events: [{ type: "prepared", at: "x" }],
        usage: { calls: 1, promptTokens: 10, completionTokens: 1 },
      });
    },
    async step(frame: TickFrame, unit: string): Promise<StepOutcome<Summary>> {
      if (options.stepMs) await options.sleep!(options.stepMs);
      await options.hold?.();
      if (options.failing?.has(unit)) {
        throw new ModelUnavailableError(
          "model_unavailable",
          `Cannot reach the model for "${unit}"`,
        );
      }
      stepped.push({ unit, at: frame.to });
      return {
        summary: { unit, at: frame.to },
        events: [{ type: "stepped", at: frame.to, agentId: unit }],
        usage: { calls: 2, promptTokens: 20, completionTokens: 2 },
      };
    },
    failed: (frame, unit, error) => ({
      summary: { unit, at: frame.to, error: (error as Error).message },
      events: [{ type: "agent_error", at: frame.to, agentId: unit }],
      usage: emptyUsage(),
    }),
    finish: () => {
      if (options.finishThrows) {
        return Promise.reject(new SimulacraError("store_unavailable", "Down"));
      }
      return Promise.resolve({ events: [{ type: "finished", at: "x" }], usage: emptyUsage() });
    },
  };
  return { system, stepped };
}

async function world(deps: Deps, id = "w"): Promise<WorldId> {
  const w = await createWorld(
    deps,
    CreateWorldInput.parse({ id, name: "Test", startTime: "2023-02-13T07:00:00" }),
  );
  return w.id as WorldId;
}

Deno.test("runTick() advances the clock once per tick id, sequentially and concurrently", async (t) => {
  await using deps = await makeTestDeps();
  const id = await world(deps);
  // Steps take a real 30 ms so that concurrent requests arrive while a tick is running.
  const { system, stepped } = fakeSystem({ stepMs: 30, sleep: deps.sleep });

  await t.step("a repeated id returns the first result", async () => {
    const first = await runTick(deps, id, { system, tickId: "one" });
    assert.equal(first.from, "2023-02-13T07:00:00");
    assert.equal(first.clock.now, "2023-02-13T07:10:00");
    assert.deepEqual(first.steps.map((s) => s.unit), ["a", "b", "c"]);
    assert.deepEqual(first.usage, { calls: 7, promptTokens: 70, completionTokens: 7 });
    const again = await runTick(deps, id, { system, tickId: "one", minutes: 60 });
    assert.deepEqual(again, first);
    assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:10:00");
    assert.equal(stepped.length, 3);
  });

  await t.step("five concurrent requests with one id advance once", async () => {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => runTick(deps, id, { system, tickId: "two" })),
    );
    for (const r of results) assert.deepEqual(r, results[0]);
    assert.equal(results[0].clock.now, "2023-02-13T07:20:00");
    assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:20:00");
    assert.equal(stepped.length, 6);
  });

  await t.step("distinct concurrent ids advance one after another", async () => {
    const results = await Promise.all(
      ["x", "y", "z"].map((tickId) => runTick(deps, id, { system, tickId, minutes: 5 })),
    );
    const spans = results.map((r) => [r.from, r.clock.now]).sort();
    assert.deepEqual(spans, [
      ["2023-02-13T07:20:00", "2023-02-13T07:25:00"],
      ["2023-02-13T07:25:00", "2023-02-13T07:30:00"],
      ["2023-02-13T07:30:00", "2023-02-13T07:35:00"],
    ]);
    assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:35:00");
  });

  await t.step("events of a tick are appended together, tick event first", async () => {
    const events = await deps.storage.events.read(id, 0, 1000);
    const one = events.filter((e) => e.tickId === "one");
    assert.deepEqual(one.map((e) => e.type), [
      "tick",
      "prepared",
      "stepped",
      "stepped",
      "stepped",
      "finished",
    ]);
    assert.equal(one[0].from, "2023-02-13T07:00:00");
    assert.equal(one[0].calls, 7);
    assert.equal(events.filter((e) => e.type === "tick").length, 5, "one per distinct id");
  });
});

Deno.test("runTick() refuses scheduled ticks of paused worlds and bad minutes, and answers 404 for unknown worlds", async () => {
  await using deps = await makeTestDeps();
  const id = await world(deps);
  const { system, stepped } = fakeSystem();
  for (const minutes of [0, 1441, 2.5, -10]) {
    await assert.rejects(
      runTick(deps, id, { system, minutes }),
      (err) => err instanceof SimulacraError && err.code === "invalid_request",
    );
  }
  await assert.rejects(
    runTick(deps, "nowhere" as WorldId, { system }),
    (err) => err instanceof SimulacraError && err.code === "world_not_found",
  );
  await updateWorld(deps, id, { paused: true });
  await assert.rejects(
    runTick(deps, id, { system, tickId: "p", scheduled: true }),
    (err) => err instanceof ConflictError && /paused/.test(err.message),
  );
  assert.equal(stepped.length, 0);
  await updateWorld(deps, id, { paused: false });
  const resumed = await runTick(deps, id, { system, tickId: "p", scheduled: true });
  assert.equal(resumed.clock.now, "2023-02-13T07:10:00", "a refused id can run once resumed");
});

Deno.test("runTick() isolates a failing unit: the others step and the clock advances once", async () => {
  await using deps = await makeTestDeps();
  const id = await world(deps);
  const { system, stepped } = fakeSystem({ failing: new Set(["b"]) });
  const result = await runTick(deps, id, { system, tickId: "f" });
  assert.deepEqual(stepped.map((s) => s.unit).sort(), ["a", "c"]);
  assert.match(result.steps[1].error ?? "", /Cannot reach the model for "b"/);
  assert.equal(result.clock.now, "2023-02-13T07:10:00");
  const events = await deps.storage.events.read(id, 0, 100);
  assert.equal(events[0].failed, 1);
  assert.deepEqual(events.filter((e) => e.type === "agent_error").map((e) => e.agentId), ["b"]);
});

Deno.test("runTick() reports a failed finish as a tick_error and still advances", async () => {
  await using deps = await makeTestDeps();
  const id = await world(deps);
  const { system } = fakeSystem({ finishThrows: true });
  const result = await runTick(deps, id, { system });
  assert.equal(result.clock.now, "2023-02-13T07:10:00");
  const events = await deps.storage.events.read(id, 0, 100);
  const error = events.find((e) => e.type === "tick_error");
  assert.equal(error?.code, "store_unavailable");
});

Deno.test("runTick() leaves the clock alone when a tick fails before it moved, and the id may run again", async () => {
  await using deps = await makeTestDeps();
  const id = await world(deps);
  await assert.rejects(
    runTick(deps, id, { system: fakeSystem({ prepareThrows: true }).system, tickId: "r" }),
    (err) => err instanceof SimulacraError && err.code === "model_unavailable",
  );
  assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:00:00");
  assert.equal((await deps.storage.events.read(id, 0, 10)).length, 0);
  const retried = await runTick(deps, id, { system: fakeSystem().system, tickId: "r" });
  assert.equal(retried.clock.now, "2023-02-13T07:10:00");
});

Deno.test("runTick() answers 409 when another tick holds the world longer than waitMs", async () => {
  await using deps = await makeTestDeps();
  const id = await world(deps);
  const steps = gate();
  const running = runTick(deps, id, {
    system: fakeSystem({ hold: steps.opened }).system,
    tickId: "slow",
  });
  await steps.entered;
  await assert.rejects(
    runTick(deps, id, { system: fakeSystem().system, tickId: "slow", waitMs: 0 }),
    (err) => err instanceof ConflictError && /still running/.test(err.message),
  );
  steps.open();
  const first = await running;
  assert.deepEqual(await runTick(deps, id, { system: fakeSystem().system, tickId: "slow" }), first);
});

Deno.test("runTick() rejects a concurrency outside 1-64", async () => {
  await using deps = await makeTestDeps();
  const id = await world(deps);
  for (const concurrency of [0, 65, 1.5]) {
    await assert.rejects(
      runTick(deps, id, { system: fakeSystem().system, concurrency }),
      (err) => err instanceof SimulacraError && err.code === "invalid_request",
    );
  }
});

Deno.test("runTick() recovers a tick id whose first run stopped midway", async (t) => {
  await using deps = await makeTestDeps();
  const id = await world(deps);
  const { system } = fakeSystem();
  const dead = (from: string) =>
    deps.storage.idempotency.put(`tick:${id}`, "dead", { value: { status: "running", from } });

  await t.step("before the clock moved: the id runs again", async () => {
    await dead("2023-02-13T07:00:00");
    const result = await runTick(deps, id, { system, tickId: "dead" });
    assert.equal(result.from, "2023-02-13T07:00:00");
    assert.equal(result.clock.now, "2023-02-13T07:10:00");
  });

  await t.step("after the clock moved: 409, never a second advance", async () => {
    await dead("2023-02-13T07:00:00");
    for (let i = 0; i < 2; i++) {
      await assert.rejects(
        runTick(deps, id, { system, tickId: "dead" }),
        (err) => err instanceof ConflictError && /send a new tick id/.test(err.message),
      );
    }
    assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:10:00");
  });
});
