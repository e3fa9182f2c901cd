import assert from "node:assert/strict";
import type { Deps } from "../../../../src/ports/deps.ts";
import { stepResults } from "../../../../src/app/engine/tick_store.ts";
import type { IdempotencyStore } from "../../../../src/ports/idempotency_store.ts";
import { consumeTickMessage, startTick } from "../../../../src/app/simulation/tick_world.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { makeTown } from "../../domain/_town_fixture.ts";
import { HeldQueue } from "../../simulation/_held_queue.ts";

/** Deps whose idempotency reads are recorded (scope and key). */
function recordingReads(deps: Deps): { deps: Deps; reads: string[] } {
  const reads: string[] = [];
  const inner = deps.storage.idempotency;
  const idempotency: IdempotencyStore = new Proxy(inner, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name === "get") {
        return (scope: string, key: string) => {
          reads.push(`${scope} ${key}`);
          return inner.get(scope, key);
        };
      }
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const storage = new Proxy(deps.storage, {
    get(target, name) {
      if (name === "idempotency") return idempotency;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { deps: { ...deps, storage }, reads };
}

Deno.test("a queued tick's close reads no step result that its own process's steps claimed", async () => {
  await using base = await makeTestDeps();
  const id = await makeTown(base);
  const { deps, reads } = recordingReads(base);
  const queue = new HeldQueue();
  await startTick(deps, id, { tickId: "t1", queue });
  for (let pending = queue.take("step"); pending.length > 0; pending = queue.take("step")) {
    for (const m of pending) await consumeTickMessage(deps, m, queue);
  }
  const marker = await deps.storage.idempotency.get<{ status: string; result: { steps: [] } }>(
    `tick:${id}`,
    "t1",
  );
  assert.equal(marker?.status, "done");
  assert.ok(marker.result.steps.length > 0);
  const unitReads = reads.filter((r) => r.startsWith(`tickstep:${id} t1/`) && !r.endsWith("#"));
  assert.deepEqual(unitReads.filter((r) => !r.endsWith("/_prepare")), []);
});

Deno.test("stepResults() answers a claimed result as the store would (a JSON copy) until removed", async () => {
  await using deps = await makeTestDeps();
  const results = stepResults(deps, "w", "t1");
  const value = { outcome: { events: [], gone: undefined, n: 1 }, carried: null };
  results.claimed("a", value);
  const read = await results.get<typeof value>("a");
  assert.deepEqual(read, { outcome: { events: [], n: 1 }, carried: null });
  assert.notEqual(read, value);
  await results.remove(["a"]);
  assert.equal(await results.get("a"), null, "Removed: read from the store, which has none");
});
