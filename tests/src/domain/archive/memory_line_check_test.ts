/**
 * The memory-line check an import takes before the schema accepts a line only when the schema
 * would, with the same record: every value it takes is one `MemoryLine` parses to itself.
 */
import assert from "node:assert/strict";
import {
  decodeVector,
  encodeVector,
  MemoryLine,
  VectorArena,
  wellFormedMemoryLine,
} from "../../../../src/domain/archive/mod.ts";

const base = {
  type: "memory",
  memory: {
    id: "m0000001",
    worldId: "bench",
    agentId: "agent0",
    kind: "observation",
    description: "Agent 0 saw someone reading a novel at the park",
    createdAt: "2023-02-13T07:01:00",
    lastAccessedAt: "2023-02-13T07:01:00",
    importance: 2,
    provenance: "witnessed",
    eventId: "tick1:someone",
  },
  embedding: encodeVector(new Float32Array([0, 0.6, 0, 0.8])),
};

/** Asserts the check takes `json` only when the schema parses it to the same value. */
function agrees(json: unknown, label: string): boolean {
  const fast = wellFormedMemoryLine(json);
  const schema = MemoryLine.safeParse(json);
  if (fast !== null) {
    assert.equal(fast, json, label);
    assert.ok(schema.success, `${label}: taken, but the schema refuses it`);
    assert.deepEqual(schema.data, json, `${label}: the schema changes it`);
  }
  return fast !== null;
}

const withField = (key: string, value: unknown) =>
  JSON.parse(JSON.stringify({ ...base, memory: { ...base.memory, [key]: value } }));

const TIMES = [
  "2023-02-13T07:01:00",
  "2024-02-29T00:00:00",
  "2023-02-29T00:00:00",
  "2000-02-29T12:00:00",
  "1900-02-29T12:00:00",
  "2023-04-31T00:00:00",
  "2023-12-31T23:59:59",
  "2023-13-01T00:00:00",
  "2023-00-10T00:00:00",
  "2023-01-00T00:00:00",
  "2023-01-01T24:00:00",
  "2023-01-01T23:60:00",
  "2023-01-01T23:00:60",
  "0000-01-01T00:00:00",
  "0001-01-01T00:00:00",
  "9998-12-31T23:59:59",
  "9999-01-01T00:00:00",
  "2023-1-01T00:00:00",
  "2023-01-01 00:00:00",
  "2023-01-01T00:00:00Z",
  "2023/01/01T00:00:00",
  "2023-01-01T00-00:00",
  "２０２３-01-01T00:00:00",
  "2023-01-01T00:00:0a",
  "2023-01-01T00:00:0/",
  "2023-01-01T00:00:0:",
  "",
  "2023-01-01T00:00:00\n",
];

Deno.test("wellFormedMemoryLine() takes an export's memory line as it is", () => {
  const line = JSON.parse(JSON.stringify(base));
  assert.ok(agrees(line, "base"));
  for (
    const [key, value] of Object.entries({
      importancePending: true,
      evidence: ["m1", "m2"],
      depth: 2,
      confidence: 0.5,
      archivedAt: "2023-02-14T00:00:00",
      count: 3,
      provenance: "told_by:Isabella Rodriguez",
      mergedInto: "m9",
    })
  ) {
    assert.ok(agrees(withField(key, value), key), key);
  }
});

Deno.test("wellFormedMemoryLine() takes no line the schema refuses or changes", () => {
  const odd = [
    null,
    true,
    0,
    1,
    10,
    11,
    -1,
    1.5,
    -0,
    2 ** 53,
    2 ** 60,
    Infinity,
    -Infinity,
    NaN,
    "",
    "x",
    "a b",
    "a".repeat(64),
    "a".repeat(65),
    "é",
    [],
    ["m1"],
    ["bad id"],
    {},
    "told_by:",
    "told_by:x",
    "trigger:rain",
    "overheard:Bo",
    "inner_voice",
    "seed",
    "self",
    "witnessed",
    "seen",
    "chat",
    "plan",
    "reflection",
    "Observation",
    ...TIMES,
  ];
  let taken = 0;
  for (const key of Object.keys(MemoryLine.shape.memory.shape)) {
    for (const value of odd) {
      const json = withField(key, value);
      // JSON drops what it cannot write: put the value back as a parse of 1e400 would.
      json.memory[key] = value;
      if (agrees(json, `${key}: ${String(value)}`)) taken++;
    }
  }
  assert.ok(taken > 0);
  const more: [string, unknown][] = [
    ["no description", { ...base, memory: { ...base.memory, description: undefined } }],
    ["an unknown field", withField("mood", "calm")],
    ["an extra line field", { ...base, extra: 1 }],
    ["no embedding", { type: "memory", memory: base.memory }],
    ["a number embedding", { ...base, embedding: 3 }],
    ["a long embedding", { ...base, embedding: "A".repeat(1_000_004) }],
    ["an array memory", { ...base, memory: [base.memory] }],
    ["a world line", { type: "world", memory: base.memory, embedding: base.embedding }],
    ["__proto__", JSON.parse(`{"type":"memory","memory":{"__proto__":{},"id":"m1"}}`)],
  ];
  for (const [label, json] of more) assert.equal(wellFormedMemoryLine(json), null, label);
  const withProto = JSON.parse(JSON.stringify(base).replace('{"id"', '{"__proto__":1,"id"'));
  assert.equal(wellFormedMemoryLine(withProto), null, "a __proto__ key");
});

Deno.test("wellFormedMemoryLine() reads game times as GameTime does", () => {
  for (const time of TIMES) {
    for (const key of ["createdAt", "lastAccessedAt", "archivedAt", "invalidAt"]) {
      agrees(withField(key, time), `${key}: ${time}`);
    }
    const valid = MemoryLine.safeParse(withField("createdAt", time)).success;
    assert.equal(wellFormedMemoryLine(withField("createdAt", time)) !== null, valid, time);
  }
  // Every day of four years, and shapes around them.
  for (let day = 0; day < 4 * 366; day++) {
    const date = new Date(Date.UTC(2023, 0, 1 + day)).toISOString().slice(0, 10);
    for (const time of [`${date}T23:59:59`, `${date.slice(0, 8)}31T00:00:00`]) {
      const valid = MemoryLine.safeParse(withField("createdAt", time)).success;
      assert.equal(wellFormedMemoryLine(withField("createdAt", time)) !== null, valid, time);
    }
  }
});

Deno.test("decodeVector() into an arena decodes as on its own, each vector its own bytes", () => {
  const arena = new VectorArena({ perBuffer: 3 });
  const vectors = Array.from({ length: 7 }, (_, i) => new Float32Array([i, -0, 0.5, i / 3]));
  const decoded = vectors.map((v) => decodeVector(encodeVector(v), 4, { arena }));
  decoded.forEach((v, i) => assert.deepEqual(v, vectors[i]));
  const good = encodeVector(vectors[1]); // ends "Pg=="
  const bad = [
    good.slice(0, -4) + " AA=",
    good.slice(0, -1) + "B",
    good.replace(/./, "-"),
    good.slice(0, -3) + "h==", // stray bits in the last chunk
    good + "AAAA",
    "@@@@",
  ];
  for (const text of bad) {
    assert.equal(decodeVector(text, 4), null, text);
    assert.equal(decodeVector(text, 4, { arena }), null, text);
  }
  // A refused vector's bytes go to the next one: the earlier ones are untouched.
  const next = decodeVector(good, 4, { arena });
  assert.deepEqual(next, vectors[1]);
  decoded.forEach((v, i) => assert.deepEqual(v, vectors[i]));
});
