import assert from "node:assert/strict";
import { fromBytes, storedDimensions, toBytes } from "../../lib/kv/_unit_vectors.ts";
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
