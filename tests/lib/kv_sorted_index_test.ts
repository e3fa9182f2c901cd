/** @module The embedded memory cache's sorted index: many inserted at once land where one by one would. */
import assert from "node:assert/strict";
import { compareKeys, SortedIndex, type SortKey } from "../../lib/kv/_sorted_index.ts";

Deno.test("SortedIndex.insertMany() orders like inserting one by one, ties by id", () => {
  let seed = 3;
  const random = () => (seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const key = (item: { score: number; id: string }): SortKey => [item.score, item.id];
  let next = 0;
  const items = (n: number, scores: number) =>
    Array.from({ length: n }, () => ({ score: Math.floor(random() * scores), id: `i${next++}` }));
  const bulk = new SortedIndex(key, items(50, 10));
  const single = new SortedIndex(key, bulk.slice());
  for (
    const batch of [
      items(500, 10),
      items(3, 10),
      [],
      items(40, 1000).map((x) => ({ ...x, score: 2000 + x.score })),
    ]
  ) {
    bulk.insertMany(batch);
    for (const item of batch) single.insert(item);
    assert.deepEqual(bulk.slice(), single.slice());
  }
  assert.equal(bulk.size, 593);
  const keys = bulk.slice().map(key);
  for (let k = 1; k < keys.length; k++) assert.ok(compareKeys(keys[k - 1], keys[k]) < 0);
});
