import assert from "node:assert/strict";
import { mapBounded } from "../../../src/engine/pool.ts";

Deno.test("mapBounded() keeps item order and never runs more than the limit at once", async () => {
  let running = 0;
  let peak = 0;
  const results = await mapBounded([5, 1, 4, 2, 3, 0, 6], 3, async (n, i) => {
    running++;
    peak = Math.max(peak, running);
    await new Promise((r) => setTimeout(r, n * 3));
    running--;
    return `${i}:${n}`;
  });
  assert.deepEqual(results, ["0:5", "1:1", "2:4", "3:2", "4:3", "5:0", "6:6"]);
  assert.equal(peak, 3);
});

Deno.test("mapBounded() handles no items and rejects a limit below 1", async () => {
  assert.deepEqual(await mapBounded([], 4, () => Promise.resolve(1)), []);
  await assert.rejects(mapBounded([1], 0, () => Promise.resolve(1)), RangeError);
});
