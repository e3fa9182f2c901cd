/**
 * @module `jsonCopy` (lib/kv/_json_copy.ts), how an appended record's cache copy is made without
 * parsing its JSON again: the round trip's value, keys in order, or undefined whenever the JSON
 * would read back as something else; and an append's cache holds what a reload reads either way.
 */
import assert from "node:assert/strict";
import { jsonCopy } from "../../lib/kv/_json_copy.ts";
import { recordWrites } from "../../lib/kv/_record_packs.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import { makeMemories, newScope } from "../contracts/_contract_support.ts";

const roundTrip = (value: unknown) => JSON.parse(JSON.stringify(value));

Deno.test("jsonCopy copies plain JSON values as their round trip does, keys in the same order", () => {
  const values: unknown[] = [
    "",
    "text \u0000 \ud800 lone",
    true,
    false,
    null,
    0,
    1.5,
    -2,
    1e300,
    5e-324,
    2 ** 53 + 2,
    [],
    [1, "a", [null, { b: 2 }]],
    {},
    { z: 1, a: 2, 10: "n", 2: "m", nested: { x: [true] } },
    Object.assign(Object.create(null), { a: 1 }),
    makeMemories(newScope(), "m", 1)[0],
  ];
  for (const value of values) {
    const copy = jsonCopy(value);
    assert.deepEqual(copy, roundTrip(value));
    if (copy !== null && typeof copy === "object") {
      assert.notEqual(copy, value);
      assert.deepEqual(Object.keys(copy), Object.keys(roundTrip(value)));
      assert.equal(Object.getPrototypeOf(copy), Object.getPrototypeOf(roundTrip(value)));
    }
  }
});

Deno.test("jsonCopy gives undefined for anything whose JSON reads back as something else", () => {
  class Point {
    x = 1;
  }
  const sparse = [1, , 3]; // a hole reads back as null
  const deep: unknown[] = [];
  let inner = deep;
  for (let i = 0; i < 20; i++) inner.push(inner = []);
  const odd: unknown[] = [
    -0,
    NaN,
    Infinity,
    -Infinity,
    undefined,
    () => 1,
    Symbol("s"),
    1n,
    { a: undefined },
    { a: -0 },
    [NaN],
    sparse,
    new Date(0),
    new Point(),
    new Map(),
    new Float32Array(2),
    { toJSON: () => 1 },
    JSON.parse('{"__proto__": {"x": 1}}'),
    deep,
  ];
  for (const value of odd) assert.equal(jsonCopy(value), undefined, String(value));
});

Deno.test("recordWrites' cache entries are what a reload reads, copied or parsed, frozen, the arguments untouched", () => {
  const scope = newScope();
  for (const count of [3, 40]) { // one key each, and packs
    const memories = makeMemories(scope, `r${count}`, count).map((m, i): MemoryRecord =>
      // Fields whose JSON differs (an undefined one is left out, -0 reads as 0): the round trip.
      i === 1 ? { ...m, importancePending: undefined, importance: -0 } as MemoryRecord : m
    );
    const { entries } = recordWrites(scope, memories, 7);
    assert.deepEqual(entries.map((e) => e.seq), memories.map((_, i) => 8 + i));
    entries.forEach((entry, i) => {
      assert.deepEqual(entry.base, roundTrip(memories[i]));
      assert.ok(Object.is(entry.base.importance, i === 1 ? 0 : memories[i].importance));
      assert.ok(Object.isFrozen(entry.base));
      assert.notEqual(entry.base, memories[i]);
      assert.ok(!Object.isFrozen(memories[i]));
      assert.equal(entry.pack === undefined, count < 32);
    });
  }
});
