/**
 * @module The vector slab's bulk writes and reads (`setMany`, `getMany`: a run of rows at a time)
 * agree with writing and reading one row at a time, across block boundaries.
 */
import assert from "node:assert/strict";
import type { SparseRows } from "../../lib/kv/_pack_rows.ts";
import { VectorSlab } from "../../lib/kv/_vector_slab.ts";

const DIMS = 24;

function unit(i: number, version = 0): Float32Array {
  const v = Float32Array.from({ length: DIMS }, (_, j) => Math.sin(i * 13 + j * 5 + version) + 1.5);
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

Deno.test("VectorSlab.setMany() and getMany() store and read what set() and get() do, past a block", () => {
  const one = new VectorSlab(DIMS);
  const bulk = new VectorSlab(DIMS);
  const ids = Array.from({ length: 5000 }, (_, i) => `m${i}`);
  ids.slice(0, 70).forEach((id, i) => one.set(id, unit(i)));
  bulk.setMany(ids.slice(0, 70), ids.slice(0, 70).map((_, i) => unit(i)));
  ids.slice(70).forEach((id, i) => one.set(id, unit(i + 70)));
  bulk.setMany(ids.slice(70), ids.slice(70).map((_, i) => unit(i + 70)));
  // Replacements, and an id given twice (its last vector wins), with a new one between them.
  const again = ["m3", "new", "m4500", "m3"];
  const vectors = [unit(3, 1), unit(9999), unit(4500, 1), unit(3, 2)];
  again.forEach((id, i) => one.set(id, vectors[i]));
  bulk.setMany(again, vectors);

  assert.equal(bulk.size, one.size);
  assert.deepEqual(bulk.ids(), one.ids());
  const asked = ["m0", "m1", "m2", "gone", "m4095", "m4096", "m4097", "m3", "new", "m4999"];
  assert.deepEqual(bulk.getMany(asked), asked.map((id) => one.get(id)));
  assert.deepEqual(bulk.getMany(bulk.ids()), one.ids().map((id) => one.get(id)));
  assert.deepEqual(bulk.get("m3"), unit(3, 2));
  assert.deepEqual(bulk.query(unit(42), 5), one.query(unit(42), 5));
  bulk.delete("m10");
  one.delete("m10");
  assert.deepEqual(bulk.getMany(bulk.ids()), one.ids().map((id) => one.get(id)));
});

Deno.test("VectorSlab.getMany() gives copies: changing one changes neither the slab nor the others", () => {
  const slab = new VectorSlab(DIMS);
  const ids = Array.from({ length: 300 }, (_, i) => `m${i}`);
  slab.setMany(ids, ids.map((_, i) => unit(i)));
  const read = slab.getMany(ids);
  read[1]!.fill(7);
  read[2]![0] = -1;
  assert.deepEqual(read[0], unit(0));
  assert.deepEqual(read[3], unit(3));
  assert.deepEqual(slab.getMany(ids), ids.map((_, i) => unit(i)));
});

/** `vectors` as a sparse pack stores them (`_pack_rows.ts`): the non-zero values of each. */
function sparseOf(vectors: Float32Array[]): SparseRows {
  const nonZero = vectors.map((v) => v.filter((x) => x !== 0).length);
  const total = nonZero.reduce((a, b) => a + b, 0);
  const rows = { counts: Uint16Array.from(nonZero), indices: new Uint16Array(total) };
  const values = new Float32Array(total);
  let k = 0;
  for (const v of vectors) {
    v.forEach((x, j) => {
      if (x !== 0) rows.indices[k] = j, values[k++] = x;
    });
  }
  return { ...rows, values };
}

Deno.test("VectorSlab.setSparse() stores what setMany() does, after reserve() past a part-full block", () => {
  const sparse = (i: number, version = 0) => unit(i, version).map((x, j) => (i + j) % 5 ? 0 : x);
  const ids = Array.from({ length: 9000 }, (_, i) => `m${i}`);
  const dense = new VectorSlab(DIMS);
  const packed = new VectorSlab(DIMS);
  packed.reserve(9000); // the last block part full: the earlier ones must not grow again
  for (let from = 0; from < ids.length; from += 700) {
    const chunk = ids.slice(from, from + 700);
    dense.setMany(chunk, chunk.map((_, i) => sparse(from + i)));
    packed.setSparse(chunk, sparseOf(chunk.map((_, i) => sparse(from + i))));
  }
  // Stored ids and an id given twice (its last row wins) go the dense way.
  const again = ["m3", "new", "m4500", "m3"];
  const vectors = [sparse(3, 1), sparse(9999), sparse(4500, 1), sparse(3, 2)];
  dense.setMany(again, vectors);
  packed.setSparse(again, sparseOf(vectors));
  assert.deepEqual(packed.ids(), dense.ids());
  assert.deepEqual(packed.getMany(packed.ids()), dense.getMany(dense.ids()));
  assert.deepEqual(packed.query(unit(42), 5), dense.query(unit(42), 5));
});
