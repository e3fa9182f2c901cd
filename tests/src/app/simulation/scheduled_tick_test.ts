import assert from "node:assert/strict";
import {
  readCronHeartbeat,
  runScheduledTick,
} from "../../../../src/app/simulation/scheduled_tick.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import { createWorld, getWorld, updateWorld } from "../../../../src/app/world/world_store.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";

Deno.test("runScheduledTick() advances each unpaused world once per minute, even when delivered twice", async () => {
  await using deps = await makeTestDeps();
  const make = async (id: string, minutesPerTick: number) =>
    (await createWorld(
      deps,
      CreateWorldInput.parse({ id, name: id, startTime: "2023-02-13T07:00:00", minutesPerTick }),
    )).id as WorldId;
  const a = await make("a", 10);
  const b = await make("b", 30);
  const paused = await make("p", 10);
  await updateWorld(deps, paused, { paused: true });

  const minute = Date.UTC(2026, 10, 22, 10, 0, 0);
  const first = await runScheduledTick(deps, minute + 1_234);
  assert.deepEqual(first.ticks, [
    { worldId: "a", tickId: "cron:a:2026-11-22T10:00:00.000Z", now: "2023-02-13T07:10:00" },
    { worldId: "b", tickId: "cron:b:2026-11-22T10:00:00.000Z", now: "2023-02-13T07:30:00" },
  ]);
  // The same minute again, twice at once: the first result, no second advance.
  const again = await Promise.all([
    runScheduledTick(deps, minute + 5_000),
    runScheduledTick(deps, minute),
  ]);
  for (const run of again) assert.deepEqual(run.ticks, first.ticks);
  assert.equal((await getWorld(deps, a)).clock.now, "2023-02-13T07:10:00");
  assert.equal((await getWorld(deps, b)).clock.now, "2023-02-13T07:30:00");
  assert.equal((await getWorld(deps, paused)).clock.now, "2023-02-13T07:00:00");
  assert.equal((await readCronHeartbeat(deps))?.runs, 3);

  const next = await runScheduledTick(deps, minute + 60_000);
  assert.equal(next.ticks[0].now, "2023-02-13T07:20:00");
  assert.equal(
    (await deps.storage.events.read(a, 0, 100)).filter((e) => e.type === "tick").length,
    2,
  );
});
