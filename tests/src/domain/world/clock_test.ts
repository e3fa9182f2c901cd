import assert from "node:assert/strict";
import { ConflictError, SimulacraError } from "../../../../src/domain/errors.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import { TickInput, UpdateWorldInput } from "../../../../src/domain/world/clock.ts";
import { advanceClock } from "../../../../src/app/world/clock_store.ts";
import { getWorld, updateWorld } from "../../../../src/app/world/world_store.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";

Deno.test("UpdateWorldInput and TickInput accept only what they name", () => {
  assert.deepEqual(UpdateWorldInput.parse({ settings: { reflectionThreshold: 50 } }), {
    settings: { reflectionThreshold: 50 },
  });
  assert.ok(!UpdateWorldInput.safeParse({ clock: { now: "2023-02-13T07:00:00" } }).success);
  assert.ok(!UpdateWorldInput.safeParse({ clock: { mode: "sometimes" } }).success);
  assert.ok(!UpdateWorldInput.safeParse({ settings: { nope: 1 } }).success);
  assert.ok(!UpdateWorldInput.safeParse({ minutesPerTick: 0 }).success);
  assert.deepEqual(TickInput.parse({}), {});
  assert.ok(
    TickInput.safeParse({ minutes: 1440, tickId: "game:w:2026-11-22T10:00:00.000Z" }).success,
  );
  for (
    const bad of [
      { minutes: 0 },
      { minutes: 1441 },
      { tickId: "" },
      { tickId: "a b" },
      { x: 1 },
      { tickId: "cron:w:2026-11-22T10:00:00.000Z" }, // reserved for the scheduler
    ]
  ) {
    assert.ok(!TickInput.safeParse(bad).success, JSON.stringify(bad));
  }
});

Deno.test("updateWorld() changes name, tick length, pause and merges settings", async () => {
  await using deps = await makeTestDeps();
  const { world, id } = await coreWorld(deps, { id: "w", name: "Old" });
  const updated = await updateWorld(deps, id, {
    name: "New",
    minutesPerTick: 15,
    paused: true,
    settings: { conversationCooldownMinutes: 120 },
  });
  assert.equal(updated.name, "New");
  assert.deepEqual(updated.clock, {
    now: "2023-02-13T07:00:00",
    minutesPerTick: 15,
    mode: "cron",
    paused: true,
  });
  assert.equal(updated.settings.conversationCooldownMinutes, 120);
  assert.equal(updated.settings.reflectionThreshold, world.settings.reflectionThreshold);
  assert.deepEqual(await getWorld(deps, id), updated);
  await assert.rejects(
    updateWorld(deps, "none" as WorldId, { paused: false }),
    (err) => err instanceof SimulacraError && err.code === "world_not_found",
  );
});

Deno.test("advanceClock() moves the clock only from the time it was read", async () => {
  await using deps = await makeTestDeps();
  const { id } = await coreWorld(deps, { id: "w", name: "W" });
  await updateWorld(deps, id, { name: "Renamed" }); // bumps the version only
  const clock = await advanceClock(deps, id, {
    from: "2023-02-13T07:00:00",
    to: "2023-02-13T07:10:00",
  });
  assert.equal(clock.now, "2023-02-13T07:10:00");
  assert.equal((await getWorld(deps, id)).name, "Renamed");
  await assert.rejects(
    advanceClock(deps, id, { from: "2023-02-13T07:00:00", to: "2023-02-13T07:10:00" }),
    (err) => err instanceof ConflictError && /another tick moved it/.test(err.message),
  );
});
