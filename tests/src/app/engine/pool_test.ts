import assert from "node:assert/strict";
import { mapBounded } from "../../../../src/app/engine/pool.ts";

/** Lets every already-settled promise chain run to its next real wait. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

/** A `fn` for mapBounded whose calls finish only when the test says so. */
function controlledCalls<R>() {
  const pending = new Map<number, PromiseWithResolvers<R>>();
  const started: number[] = [];
  return {
    started,
    running: () => [...pending.keys()].sort((a, b) => a - b),
    fn: (_item: unknown, index: number): Promise<R> => {
      const call = Promise.withResolvers<R>();
      pending.set(index, call);
      started.push(index);
      return call.promise;
    },
    finish(index: number, value: R): void {
      pending.get(index)!.resolve(value);
      pending.delete(index);
    },
    fail(index: number, error: Error): void {
      pending.get(index)!.reject(error);
      pending.delete(index);
    },
  };
}

Deno.test("mapBounded() keeps item order and never runs more than the limit at once", async () => {
  const calls = controlledCalls<string>();
  const items = ["a", "b", "c", "d", "e", "f", "g"];
  const mapped = mapBounded(items, 3, calls.fn);
  await settle();
  assert.deepEqual(calls.running(), [0, 1, 2], "the first three start, no more");

  // Finish out of order: each freed slot takes the next item, one at a time.
  calls.finish(1, "B");
  await settle();
  assert.deepEqual(calls.running(), [0, 2, 3]);
  calls.finish(3, "D");
  calls.finish(2, "C");
  await settle();
  assert.deepEqual(calls.running(), [0, 4, 5]);
  calls.finish(5, "F");
  await settle();
  assert.deepEqual(calls.running(), [0, 4, 6], "the last item starts");
  calls.finish(6, "G");
  calls.finish(4, "E");
  await settle();
  assert.deepEqual(calls.running(), [0], "nothing left to start");
  calls.finish(0, "A");

  assert.deepEqual(await mapped, ["A", "B", "C", "D", "E", "F", "G"], "results in item order");
  assert.deepEqual(calls.started, [0, 1, 2, 3, 4, 5, 6], "items start in order");
});

Deno.test("mapBounded() runs every item at once when the limit exceeds the items", async () => {
  const calls = controlledCalls<number>();
  const mapped = mapBounded([10, 20], 8, calls.fn);
  await settle();
  assert.deepEqual(calls.running(), [0, 1]);
  calls.finish(1, 2);
  calls.finish(0, 1);
  assert.deepEqual(await mapped, [1, 2]);
});

Deno.test("mapBounded() rejects with the first failure", async () => {
  const calls = controlledCalls<number>();
  const mapped = mapBounded([1, 2, 3], 2, calls.fn);
  await settle();
  calls.fail(1, new Error("item 2 broke"));
  await assert.rejects(mapped, /item 2 broke/);
});

Deno.test("mapBounded() handles no items and rejects a limit below 1", async () => {
  assert.deepEqual(await mapBounded([], 4, () => Promise.resolve(1)), []);
  for (const limit of [0, -1, 1.5, Number.NaN]) {
    await assert.rejects(mapBounded([1], limit, () => Promise.resolve(1)), RangeError);
  }
});
