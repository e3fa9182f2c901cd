import assert from "node:assert/strict";
import type { WorldId } from "../../../../src/domain/ids.ts";
import { awaitTick, closedHere, tellTickClosed } from "../../../../src/app/engine/_tick_wait.ts";
import { markerScope } from "../../../../src/app/engine/tick_store.ts";
import type { TickMarker, TickRecord } from "../../../../src/app/engine/tick_engine.ts";
import { FakeClock } from "../../../_helpers/fake_clock.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";

const world = "w_wait" as WorldId;

/** Test deps on a fake clock whose marker looks are counted. */
async function waitingDeps() {
  const clock = new FakeClock();
  const deps = await makeTestDeps({ sleep: clock.sleep });
  const looks = { count: 0 };
  const get = deps.storage.idempotency.get.bind(deps.storage.idempotency);
  deps.storage.idempotency.get = (scope, key) => {
    if (scope === markerScope(world)) looks.count++;
    return get(scope, key);
  };
  return { deps, clock, looks };
}

function record(tickId: string): TickRecord<unknown> {
  return {
    tickId,
    from: "2023-02-13T07:00:00",
    minutes: 10,
    clock: { now: "2023-02-13T07:10:00" },
    steps: [],
    usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    events: 1,
  } as unknown as TickRecord<unknown>;
}

Deno.test("A waiting tick closed by this process is told at once: no look at its marker (issue 25)", async () => {
  const { deps, clock, looks } = await waitingDeps();
  await using _ = deps;
  const waiting = awaitTick(deps, world, { tickId: "t1", waitMs: 60_000 });
  await clock.sleeping();
  tellTickClosed(deps, { status: "done", result: record("t1") }, { worldId: world, tickId: "t1" });
  assert.equal((await waiting).tickId, "t1");
  assert.equal(looks.count, 0);
  // Its periodic check will not look either; a tick closed elsewhere is not known here.
  assert.ok(closedHere(deps, world, "t1"));
  assert.ok(!closedHere(deps, world, "t2"));
  // Told of another tick (or another world's), a waiter keeps waiting.
  const other = awaitTick(deps, world, { tickId: "t2", waitMs: 60_000 });
  await clock.sleeping();
  tellTickClosed(deps, { status: "done", result: record("t3") }, { worldId: world, tickId: "t3" });
  tellTickClosed(deps, { status: "done", result: record("t2") }, {
    worldId: "w_other",
    tickId: "t2",
  });
  const failed: TickMarker<unknown> = {
    status: "failed",
    retryable: false,
    code: "conflict",
    message: "Tick t2 lost",
  };
  assert.equal(clock.pending, 1);
  tellTickClosed(deps, failed, { worldId: world, tickId: "t2" });
  await assert.rejects(other, /Tick t2 lost/);
  assert.equal(looks.count, 0);
});

Deno.test("A waiting tick closed by another process is seen at a look at its marker: after 1 s, then every 2 s", async () => {
  const { deps, clock, looks } = await waitingDeps();
  await using _ = deps;
  const waiting = awaitTick(deps, world, { tickId: "t1", waitMs: 60_000 });
  await clock.sleeping();
  clock.advance(1_000);
  await clock.sleeping();
  assert.equal(looks.count, 1);
  await deps.storage.idempotency.put<TickMarker<unknown>>(markerScope(world), "t1", {
    value: { status: "done", result: record("t1") },
  });
  clock.advance(1_999);
  assert.equal(looks.count, 1);
  clock.advance(1);
  assert.equal((await waiting).tickId, "t1");
  assert.equal(looks.count, 2);
});

Deno.test("A tick still open after the wait is a conflict", async () => {
  const { deps, clock } = await waitingDeps();
  await using _ = deps;
  const waiting = awaitTick(deps, world, { tickId: "t1", waitMs: 3_000 });
  const refused = assert.rejects(waiting, (e: Error & { code?: string }) => e.code === "conflict");
  // Looks after 1 s and 3 s: the second is past the wait.
  for (let i = 0; i < 2; i++) {
    await clock.sleeping();
    clock.advance(2_000);
  }
  await refused;
});
