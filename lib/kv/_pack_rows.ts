/**
 * @module Private to lib/kv: the rows of a vector pack (`_vector_packs.ts`), dense or sparse.
 *
 * Dense: the float32 rows back to back. Sparse, when smaller: a u16 count of non-zero values per
 * row, then every row's u16 indices, then every row's float32 values, each part padded to 4
 * bytes. The local embedder's 384-dimension vectors have ~46 non-zeros (feature hashing), so a
 * sparse row takes ~280 bytes instead of 1,536: an import of 100,000 memories wrote 153 MB of
 * vectors to KV, its main cost after the per-key ones (BENCHMARKS.md, issue 25). The values
 * are the same float32 values either way.
 */

import { bitsOf } from "./_unit_vectors.ts";

const pad4 = (n: number) => Math.ceil(n / 4) * 4;

/** How many values of `row` are not +0 (a -0 is kept, as a single key's sparse bytes keep it). */
export function nonZeros(row: Float32Array): number {
  const bits = bitsOf(row);
  let n = 0;
  for (let j = 0, end = bits.length; j < end; j++) if (bits[j] !== 0) n++;
  return n;
}

/** The bytes `rows` rows of `dimensions` take, holding `nonZero` non-zero values in all. */
export function rowBytes(
  rows: number,
  { dimensions, nonZero }: { dimensions: number; nonZero: number },
): { dense: number; sparse: number } {
  return { dense: rows * dimensions * 4, sparse: pad4(2 * rows) + pad4(2 * nonZero) + 4 * nonZero };
}

/**
 * The rows' bytes (a multiple of 4), sparse or dense, whichever is smaller; and which. `counts`:
 * each row's non-zero values, when known; `at`: their positions, when known (the same count).
 */
export function encodeRows(
  rows: readonly Float32Array[],
  { dimensions, counts = rows.map(nonZeros), at }: {
    dimensions: number;
    counts?: readonly number[];
    at?: readonly (Uint16Array | undefined)[];
  },
): { bytes: Uint8Array; sparse: boolean } {
  const nonZero = counts.reduce((a, b) => a + b, 0);
  const size = rowBytes(rows.length, { dimensions, nonZero });
  if (size.dense <= size.sparse) {
    const floats = new Float32Array(rows.length * dimensions);
    rows.forEach((row, i) => floats.set(row, i * dimensions));
    return { bytes: new Uint8Array(floats.buffer), sparse: false };
  }
  const bytes = new Uint8Array(size.sparse);
  const indexAt = pad4(2 * rows.length);
  new Uint16Array(bytes.buffer, 0, rows.length).set(counts);
  const indices = new Uint16Array(bytes.buffer, indexAt, nonZero);
  // The values' bits, copied as they are (the same float32 values).
  const values = new Uint32Array(bytes.buffer, indexAt + pad4(2 * nonZero), nonZero);
  let k = 0;
  rows.forEach((row, r) => {
    const bits = bitsOf(row);
    const known = at?.[r];
    if (known !== undefined) {
      // A bulk upsert's rows: their ~46 non-zeros of 384 found as they were computed.
      indices.set(known, k);
      for (let q = 0; q < known.length; q++) values[k++] = bits[known[q]];
      return;
    }
    for (let j = 0; j < dimensions; j++) {
      const b = bits[j];
      if (b === 0) continue;
      indices[k] = j;
      values[k++] = b;
    }
  });
  return { bytes, sparse: true };
}

/**
 * The `count` rows of `dimensions` that `bytes` (4-byte aligned) hold, or null when their size
 * does not fit: dense rows are views of `bytes`, sparse ones views of one new array.
 */
export function decodeRows(
  bytes: Uint8Array,
  { count, dimensions, sparse }: { count: number; dimensions: number; sparse: boolean },
): Float32Array[] | null {
  if (!sparse) {
    if (bytes.length !== count * dimensions * 4) return null;
    return Array.from(
      { length: count },
      (_, i) => new Float32Array(bytes.buffer, bytes.byteOffset + i * dimensions * 4, dimensions),
    );
  }
  const parts = sparseRows(bytes, { count, dimensions });
  return parts === null ? null : denseRows(parts, dimensions);
}

/** Sparse rows as stored: each row's count of non-zero values, then every row's indices and values. */
export interface SparseRows {
  counts: Uint16Array;
  indices: Uint16Array;
  values: Float32Array;
}

/** The sparse rows `bytes` (4-byte aligned) hold, views of them, or null when they do not fit. */
export function sparseRows(
  bytes: Uint8Array,
  { count, dimensions }: { count: number; dimensions: number },
): SparseRows | null {
  if (bytes.length < pad4(2 * count)) return null;
  const counts = new Uint16Array(bytes.buffer, bytes.byteOffset, count);
  const nonZero = counts.reduce((a, b) => a + b, 0);
  if (bytes.length !== rowBytes(count, { dimensions, nonZero }).sparse) return null;
  const indexAt = bytes.byteOffset + pad4(2 * count);
  const indices = new Uint16Array(bytes.buffer, indexAt, nonZero);
  for (let k = 0; k < nonZero; k++) if (indices[k] >= dimensions) return null;
  const values = new Float32Array(bytes.buffer, indexAt + pad4(2 * nonZero), nonZero);
  return { counts, indices, values };
}

/** Sparse rows as dense ones, views of one new array (an allocation per row cost more). */
export function denseRows(
  { counts, indices, values }: SparseRows,
  dimensions: number,
): Float32Array[] {
  const all = new Float32Array(counts.length * dimensions);
  let k = 0;
  for (let i = 0, at = 0; i < counts.length; i++, at += dimensions) {
    for (const end = k + counts[i]; k < end; k++) all[at + indices[k]] = values[k];
  }
  return Array.from(
    { length: counts.length },
    (_, i) => all.subarray(i * dimensions, (i + 1) * dimensions),
  );
}
