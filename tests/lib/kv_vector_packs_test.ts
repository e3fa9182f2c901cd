/**
 * @module The embedded index's packs (vectors written in bulk, many to a KV value): what a
 * reopened store reads back after bulk and single writes, replacements and deletes, and that
 * stores written before packs (one key per vector) still load.
 */
import assert from "node:assert/strict";
import { encodePack } from "../../lib/kv/_vector_packs.ts";
import { KvVectorIndex } from "../../lib/kv/kv_vector_index.ts";
import type { AgentScope, MemoryId } from "../../src/domain/ids.ts";
import { mid, newScope } from "../contracts/_contract_support.ts";

const DIMS = 16;

/** A distinct vector per (id number, version). */
function vectorOf(i: number, version = 0): Float32Array {
  return Float32Array.from(
    { length: DIMS },
    (_, j) => Math.sin(i * 31 + j * 7 + version * 101) + 2,
  );
}

function unitOf(vector: Float32Array): Float32Array {
  const norm = Math.sqrt(vector.reduce((s, x) => s + x * x, 0));
  return Float32Array.from(vector, (x) => x / norm);
}

function entries(from: number, to: number, version = 0) {
  return Array.from({ length: to - from }, (_, k) => ({
    id: mid(`m${from + k}`),
    vector: vectorOf(from + k, version),
  }));
}

/** Every stored vector of the scope, read by a fresh index over the same KV (a restart). */
async function reopened(kv: Deno.Kv, scope: AgentScope): Promise<Map<string, Float32Array>> {
  const index = new KvVectorIndex({ kv, dimensions: DIMS });
  const ids = await index.ids(scope);
  return new Map((await index.fetch(scope, ids)).map((e) => [e.id, e.vector]));
}

function assertStored(
  stored: Map<string, Float32Array>,
  expected: Map<string, Float32Array>,
): void {
  assert.deepEqual([...stored.keys()].sort(), [...expected.keys()].sort());
  for (const [id, vector] of expected) assert.deepEqual(stored.get(id), unitOf(vector), id);
}

Deno.test("KvVectorIndex writes a bulk upsert as packs, fewer keys than vectors, read back exactly", async () => {
  using kv = await Deno.openKv(":memory:");
  const index = new KvVectorIndex({ kv, dimensions: DIMS });
  const scope = newScope();
  const written = entries(0, 500);
  await index.upsert(scope, written);
  let keys = 0;
  for await (const _ of kv.list({ prefix: ["vec", scope.worldId, scope.agentId] })) keys++;
  assert.ok(keys < 10, `${keys} keys for 500 vectors`);
  assertStored(await reopened(kv, scope), new Map(written.map((e) => [e.id, e.vector])));
});

Deno.test("KvVectorIndex: replacements and deletes of packed vectors hold after a restart", async () => {
  for (const loadedFirst of [false, true]) {
    using kv = await Deno.openKv(":memory:");
    const index = new KvVectorIndex({ kv, dimensions: DIMS });
    const scope = newScope();
    const expected = new Map<string, Float32Array>();
    const put = async (list: { id: MemoryId; vector: Float32Array }[]) => {
      await index.upsert(scope, list);
      for (const e of list) expected.set(e.id, e.vector);
    };
    await put(entries(0, 200));
    if (loadedFirst) await index.query(scope, vectorOf(1), 1);
    await put(entries(10, 12, 1)); // single keys over packed rows
    await put(entries(100, 300, 2)); // a newer pack over older packs' rows
    await put(entries(10, 80, 3)); // packs over single keys
    await put(entries(11, 12, 4));
    const gone = [mid("m0"), mid("m11"), mid("m150"), mid("m299"), mid("m999")];
    await index.delete(scope, gone);
    for (const id of gone) expected.delete(id);
    assertStored(await reopened(kv, scope), expected);
    const fresh = new KvVectorIndex({ kv, dimensions: DIMS });
    await fresh.delete(scope, [mid("m5")]); // deletes by an index that had not loaded them
    expected.delete(mid("m5"));
    assertStored(await reopened(kv, scope), expected);
  }
});

Deno.test("KvVectorIndex: bulk upserts of the same ids again leave no stale packs behind", async () => {
  using kv = await Deno.openKv(":memory:");
  const index = new KvVectorIndex({ kv, dimensions: DIMS });
  const scope = newScope();
  const keys = async () => {
    let n = 0;
    for await (const _ of kv.list({ prefix: ["vec", scope.worldId, scope.agentId] })) n++;
    return n;
  };
  await index.upsert(scope, entries(0, 300));
  const first = await keys();
  for (const version of [1, 2, 3]) await index.upsert(scope, entries(0, 300, version));
  assert.equal(await keys(), first);
  assertStored(
    await reopened(kv, scope),
    new Map(entries(0, 300, 3).map((e) => [e.id, e.vector])),
  );
});

Deno.test("KvVectorIndex loads vectors stored one key each (stores written before packs)", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = newScope();
  const expected = new Map<string, Float32Array>();
  for (const { id, vector } of entries(0, 120)) {
    const unit = unitOf(vector);
    await kv.set(["vec", scope.worldId, scope.agentId, id], new Uint8Array(unit.buffer));
    expected.set(id, vector);
  }
  const index = new KvVectorIndex({ kv, dimensions: DIMS });
  await index.upsert(scope, entries(60, 200, 1)); // packs replacing half of them
  for (const e of entries(60, 200, 1)) expected.set(e.id, e.vector);
  assertStored(await reopened(kv, scope), expected);
  const [best] = await index.query(scope, vectorOf(7), 1);
  assert.equal(best.id, "m7");
});

Deno.test("KvVectorIndex packs sparse vectors by their non-zero values, read back exactly, beside dense packs", async () => {
  using kv = await Deno.openKv(":memory:");
  const dims = 384;
  const index = new KvVectorIndex({ kv, dimensions: dims });
  const scope = newScope();
  // ~40 non-zeros of 384, as the local embedder's feature hashing gives; then dense ones.
  const sparse = Array.from({ length: 300 }, (_, i) => {
    const v = new Float32Array(dims);
    for (let k = 0; k < 40; k++) v[(i * 7 + k * 9) % dims] = Math.sin(i + k) + 1.5;
    v[(i * 7 + 1) % dims] = -0; // kept as -0, as a single key's bytes keep it
    return { id: mid(`s${i}`), vector: v };
  });
  const dense = Array.from({ length: 100 }, (_, i) => ({
    id: mid(`d${i}`),
    vector: Float32Array.from({ length: dims }, (_, j) => Math.cos(i * 3 + j) + 1.5),
  }));
  await index.upsert(scope, sparse);
  let bytes = 0, keys = 0;
  for await (const e of kv.list<Uint8Array>({ prefix: ["vec", scope.worldId, scope.agentId] })) {
    bytes += e.value.length;
    keys++;
  }
  assert.ok(keys <= 2 && bytes < 300 * 400, `${keys} packs of ${bytes} bytes for 300 vectors`);
  await index.upsert(scope, dense);
  await index.delete(scope, [mid("s5")]); // rewrites a sparse pack without it
  const stored = new KvVectorIndex({ kv, dimensions: dims });
  const ids = await stored.ids(scope);
  const got = new Map((await stored.fetch(scope, ids)).map((e) => [e.id, e.vector]));
  assert.equal(got.size, 399);
  assert.ok(Object.is(got.get(mid("s0"))![1], -0) && Object.is(got.get(mid("s0"))![2], 0));
  for (const { id, vector } of [...sparse, ...dense]) {
    if (id === "s5") continue;
    const norm = Math.sqrt(vector.reduce((s, x) => s + x * x, 0));
    assert.deepEqual(got.get(id), Float32Array.from(vector, (x) => x / norm), id);
  }
});

Deno.test("KvVectorIndex packs a bulk upsert's units as one at a time stores them: -0, and a value that divides to +0", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = newScope();
  const odd = (i: number) => {
    const v = new Float32Array(DIMS);
    v[i % DIMS] = 3e38; // the norm makes the subnormal below +0, and a tiny negative -0
    v[(i + 1) % DIMS] = i % 2 === 0 ? 1e-45 : -1e-45;
    v[(i + 2) % DIMS] = -0;
    v[(i + 3) % DIMS] = i + 1;
    return v;
  };
  const bulk = Array.from({ length: 100 }, (_, i) => ({ id: mid(`o${i}`), vector: odd(i) }));
  await new KvVectorIndex({ kv, dimensions: DIMS }).upsert(scope, bulk);
  const single = newScope();
  const one = new KvVectorIndex({ kv, dimensions: DIMS });
  for (const entry of bulk) await one.upsert(single, [entry]);
  const [packed, alone] = [await reopened(kv, scope), await reopened(kv, single)];
  const bitsOf = (
    v: Float32Array | undefined,
  ) => [...new Uint32Array(v!.buffer, v!.byteOffset, DIMS)];
  for (const { id } of bulk) assert.deepEqual(bitsOf(packed.get(id)), bitsOf(alone.get(id)), id);
});

Deno.test("KvVectorIndex loads packs past a slab block, a later pack's row and then a single key winning", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = newScope();
  const expected = new Map<string, Float32Array>();
  // Packs as a crash between a bulk upsert's writes can leave them: rows of an id in two packs.
  const packs = [
    ...Array.from({ length: 10 }, (_, p) => entries(p * 500, p * 500 + 500)),
    entries(4000, 4100, 1),
    entries(100, 110, 2),
  ];
  for (const [n, list] of packs.entries()) {
    const pack = { ids: list.map((e) => e.id), rows: list.map((e) => unitOf(e.vector)) };
    await kv.set(["vec", scope.worldId, scope.agentId, n], encodePack(pack, DIMS));
    for (const e of list) expected.set(e.id, e.vector);
  }
  const single = entries(105, 106, 3);
  await new KvVectorIndex({ kv, dimensions: DIMS }).upsert(scope, single);
  expected.set(single[0].id, single[0].vector);
  assertStored(await reopened(kv, scope), expected);
});
