import assert from "node:assert/strict";
import { encodeRows, nonZeros } from "../../lib/kv/_pack_rows.ts";
import {
  fromBytes,
  storedDimensions,
  toBytes,
  UnitRows,
  unitVector,
} from "../../lib/kv/_unit_vectors.ts";
import { KvVectorIndex } from "../../lib/kv/kv_vector_index.ts";
import type { AgentId, MemoryId, WorldId } from "../../src/domain/ids.ts";

const DIMS = 384;

function sparse(nonZeros: Record<number, number>): Float32Array {
  const v = new Float32Array(DIMS);
  for (const [i, x] of Object.entries(nonZeros)) v[Number(i)] = x;
  return v;
}

function bits(v: Float32Array): number[] {
  return [...new Uint32Array(v.buffer, v.byteOffset, v.length)];
}

Deno.test("a sparse vector is stored as its non-zeros and reads back bit for bit, -0 included", () => {
  const v = sparse({ 0: 0.5, 7: -0.25, 200: -0, 383: 1e-30 });
  const bytes = toBytes(v);
  assert.equal(bytes.length, 3 + 6 * 4);
  assert.equal(storedDimensions(bytes), DIMS);
  assert.deepEqual(bits(fromBytes(bytes)), bits(v));
});

Deno.test("a dense vector is stored as its float32 bytes, as before, and reads back", () => {
  const v = Float32Array.from({ length: DIMS }, (_, i) => Math.sin(i + 1));
  const bytes = toBytes(v);
  assert.equal(bytes.length, DIMS * 4);
  assert.equal(storedDimensions(bytes), DIMS);
  assert.deepEqual(bits(fromBytes(bytes)), bits(v));
});

Deno.test("KvVectorIndex loads vectors stored dense (older files) and sparse side by side", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const scope = { worldId: "w" as WorldId, agentId: "a" as AgentId };
    const old = sparse({ 1: 1 });
    // What earlier versions wrote for every vector: its float32 bytes.
    await kv.set(["vec", "w", "a", "old"], new Uint8Array(old.buffer));
    await new KvVectorIndex({ kv, dimensions: DIMS }).upsert(scope, [
      { id: "new" as MemoryId, vector: sparse({ 1: 0.6, 2: 0.8 }) },
    ]);
    assert.equal((await kv.get<Uint8Array>(["vec", "w", "a", "new"])).value!.length, 3 + 6 * 2);
    const index = new KvVectorIndex({ kv, dimensions: DIMS });
    const got = await index.query(scope, sparse({ 1: 1 }), 2);
    assert.deepEqual(got.map((m) => m.id), ["old", "new"]);
    assert.ok(Math.abs(got[1].score - 0.6) < 1e-6);
    const other = new KvVectorIndex({ kv, dimensions: 256 });
    await assert.rejects(other.query(scope, new Float32Array(256).fill(1), 1), /384 dimensions/);
  } finally {
    kv.close();
  }
});

Deno.test("UnitRows writes unitVector's floats bit for bit from the non-zeros, counts them, and refuses as it does", () => {
  let seed = 7;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31 - 0.5;
  const vectors = [
    sparse({ 0: 0.5, 7: -0.25, 200: -0, 383: 1e-30 }),
    sparse({ 5: 1e-45, 6: 3e38 }), // a subnormal and a large value: one non-zero in the unit
    sparse({ 9: -0, 10: 2 }),
    Float32Array.from({ length: DIMS }, (_, i) => Math.sin(i + 1)),
    ...Array.from(
      { length: 50 },
      () => Float32Array.from({ length: DIMS }, () => random() > 0.35 ? 0 : random()),
    ),
  ];
  const options = { dimensions: DIMS, action: "store" };
  for (const vector of vectors) {
    const rows = new UnitRows(3, DIMS);
    const { unit: into, at } = rows.unit(vector, { row: 1, action: "store" });
    const count = at.length;
    assert.deepEqual([...at], [...into.keys()].filter((j) => bits(into)[j] !== 0));
    assert.deepEqual(bits(rows.unit(vector, { row: 0, action: "store" }).unit), bits(into));
    assert.deepEqual(bits(into), bits(unitVector(vector, options)));
    if (vector === vectors[1]) assert.equal(count, 1);
    // The unit's count (what packing sizes its rows by): the subnormal divides to +0.
    assert.equal(count, nonZeros(into));
  }
  const refused = [
    new Float32Array(DIMS),
    sparse({ 3: -0 }),
    sparse({ 1: NaN }),
    sparse({ 1: Infinity, 2: 1 }),
    new Float32Array(DIMS - 1).fill(1),
  ];
  for (const vector of refused) {
    const expected = (() => {
      try {
        unitVector(vector, options);
      } catch (err) {
        return (err as Error).message;
      }
    })();
    assert.ok(expected);
    assert.throws(() => new UnitRows(1, DIMS).unit(vector, { row: 0, action: "store" }), {
      message: expected,
    });
  }
});

Deno.test("a pack's rows encode to the same bytes with UnitRows' positions of their non-zeros as without", () => {
  const vectors = [
    sparse({ 0: 0.5, 7: -0.25, 200: -0, 383: 1e-30 }),
    sparse({ 5: 1e-45, 6: 3e38 }),
    Float32Array.from({ length: DIMS }, (_, i) => (i % 9 === 0 ? Math.cos(i) : 0)),
  ];
  const rows = new UnitRows(vectors.length, DIMS);
  const units = vectors.map((vector, row) => rows.unit(vector, { row, action: "store" }));
  const plain = encodeRows(units.map((u) => u.unit), { dimensions: DIMS });
  const known = encodeRows(units.map((u) => u.unit), {
    dimensions: DIMS,
    counts: units.map((u) => u.at.length),
    at: units.map((u) => u.at),
  });
  assert.ok(plain.sparse && known.sparse);
  assert.deepEqual(known.bytes, plain.bytes);
});
