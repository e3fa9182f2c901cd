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

Deno.test("SortedIndex built from unsorted items is in order whichever method uses it first", () => {
  type Item = { score: number; id: string };
  const key = (item: Item): SortKey => [item.score, item.id];
  const order = (list: Item[]) => list.slice().sort((a, b) => compareKeys(key(a), key(b)));
  const items = Array.from({ length: 40 }, (_, i) => ({ score: (i * 17) % 11, id: `i${i}` }));
  const sorted = order(items);
  const firstAbove = (k: SortKey) => sorted.findIndex((x) => compareKeys(key(x), k) > 0);
  const late = { score: 5, id: "z" };
  const many = Array.from({ length: 8 }, (_, i) => ({ score: (i * 5) % 11, id: `n${i}` }));
  const uses: [string, (index: SortedIndex<Item>) => unknown, Item[]][] = [
    ["size", (index) => assert.equal(index.size, 40), sorted],
    ["at", (index) => assert.equal(index.at(0), sorted[0]), sorted],
    [
      "lowerBound",
      (index) => assert.equal(index.lowerBound([5, ""]), firstAbove([4, "~"])),
      sorted,
    ],
    [
      "upperBound",
      (index) => assert.equal(index.upperBound([5, "i9"]), firstAbove([5, "i9"])),
      sorted,
    ],
    ["insert", (index) => index.insert(late), order([...items, late])],
    ["insertMany", (index) => index.insertMany(many), order([...items, ...many])],
    ["remove", (index) => assert.ok(index.remove(sorted[7])), sorted.filter((_, i) => i !== 7)],
  ];
  for (const [name, use, expected] of uses) {
    const index = new SortedIndex(key, items);
    use(index);
    assert.deepEqual(index.slice(), expected, name);
  }
});
