import assert from "node:assert/strict";
import { EventsQuery, followEvents, listEvents } from "../../../../src/app/world/event_feed.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import type { LoggedEvent } from "../../../../src/ports/event_log.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";

async function withEvents(count: number) {
  const deps = await makeTestDeps();
  const { id } = await coreWorld(deps, { id: "w", name: "W" });
  await deps.storage.events.append(
    id,
    Array.from({ length: count }, (_, i) => ({ type: "tick", at: "2023-02-13T07:00:00", n: i })),
  );
  return { deps, id };
}

Deno.test("EventsQuery coerces and bounds after and limit", () => {
  assert.deepEqual(EventsQuery.parse({}), { limit: 100 });
  assert.deepEqual(EventsQuery.parse({ after: "5", limit: "1000" }), { after: 5, limit: 1000 });
  assert.ok(!EventsQuery.safeParse({ after: "5", from: "latest" }).success, "one start only");
  assert.ok(!EventsQuery.safeParse({ type: "tick;drop" }).success);
  for (
    const bad of [{ limit: "0" }, { limit: "1001" }, { after: "-1" }, { after: "x" }, { y: 1 }]
  ) {
    assert.ok(!EventsQuery.safeParse(bad).success, JSON.stringify(bad));
  }
});

Deno.test("listEvents() pages through the log with next as the cursor", async () => {
  const { deps, id } = await withEvents(5);
  await using _ = deps;
  const first = await listEvents(deps, id, { after: 0, limit: 2 });
  assert.deepEqual(first.events.map((e) => e.seq), [1, 2]);
  assert.equal(first.next, 2);
  const rest = await listEvents(deps, id, { after: first.next, limit: 100 });
  assert.deepEqual(rest.events.map((e) => e.seq), [3, 4, 5]);
  const none = await listEvents(deps, id, { after: rest.next, limit: 100 });
  assert.deepEqual(none, { events: [], next: 5, latest: 5 });
  await assert.rejects(
    listEvents(deps, "none" as WorldId, { after: 0, limit: 1 }),
    (err) => err instanceof SimulacraError && err.code === "world_not_found",
  );
});

Deno.test("followEvents() delivers existing and new events, keeps alive, and stops on abort", async () => {
  const { deps, id } = await withEvents(2);
  await using _ = deps;
  const stop = new AbortController();
  const feed = await followEvents(deps, id, {
    after: 1,
    pollMs: 10,
    idleMs: 30,
    signal: stop.signal,
  });
  const got: LoggedEvent[][] = [];
  const first = Promise.withResolvers<void>();
  const reading = (async () => {
    for await (const batch of feed) {
      got.push(batch);
      first.resolve();
      if (got.flat().length === 2 && got.some((b) => b.length === 0)) stop.abort();
    }
  })();
  await first.promise; // the existing event came; the feed now waits for more
  await deps.storage.events.append(id, [{ type: "later", at: "2023-02-13T07:10:00" }]);
  await reading;
  assert.deepEqual(got.flat().map((e) => e.seq), [2, 3]);
  assert.ok(got.some((b) => b.length === 0), "an empty batch for keep-alives");
  await assert.rejects(followEvents(deps, "none" as WorldId), SimulacraError);
});
