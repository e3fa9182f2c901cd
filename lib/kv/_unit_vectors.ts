/** @module Private to lib/kv: the unit-length vectors the embedded index keeps, and their stored bytes. */
import { embeddingProblem, SimulacraError, vectorNorm } from "../../src/domain/mod.ts";

/**
 * A unit-length copy of `vector`, or `invalid_request` when its length is not `dimensions` or
 * it is zero or not finite; `action` names what was asked in the error, e.g. "query with".
 */
export function unitVector(
  vector: Float32Array,
  { dimensions, action }: { dimensions: number; action: string },
): Float32Array {
  // One norm for the check and the division (the check's own is computed only to word an error).
  const norm = vector.length === dimensions ? vectorNorm(vector) : NaN;
  if (!(norm > 0) || !Number.isFinite(norm)) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot ${action} this vector: it ${embeddingProblem(vector, dimensions)}`,
    );
  }
  const unit = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) unit[i] = vector[i] / norm;
  return unit;
}

/**
 * The unit vectors of a bulk upsert, `count` rows of `dimensions` in one buffer of their own (an
 * allocation each cost an import more than computing them, BENCHMARKS.md, issue 25, 2d), each
 * written from its vector's non-zero values alone (2f): the same floats as {@linkcode unitVector},
 * since a +0 adds nothing to the norm's sum of squares (summed in the same order) and divides to
 * the +0 a row holds already. The local embedder's vectors have ~46 non-zeros of 384: one pass
 * over their bits and a division of the non-zeros, where the norm, the division and packing's
 * count each went over every value.
 */
export class UnitRows {
  readonly #rows: Float32Array;
  readonly #bits: Uint32Array;
  readonly #dimensions: number;
  /** The positions of the vector's non-zero values (one array for every row). */
  readonly #positions: Uint32Array;
  /** Each row's non-zero positions, from the row's start (for packing: no search of its zeros). */
  readonly #at: Uint16Array;

  /** `dimensions` at most 65,536 (positions are u16, as in a sparse pack). */
  constructor(count: number, dimensions: number) {
    this.#rows = new Float32Array(count * dimensions);
    this.#bits = bitsOf(this.#rows);
    this.#dimensions = dimensions;
    this.#positions = new Uint32Array(dimensions);
    this.#at = new Uint16Array(count * dimensions);
  }

  /**
   * Row `row` (written once) as `vector`'s unit, and the positions of its values that are not
   * +0 (a -0 counts, as packing keeps it); `invalid_request` as {@linkcode unitVector} words it.
   */
  unit(
    vector: Float32Array,
    { row, action }: { row: number; action: string },
  ): { unit: Float32Array; at: Uint16Array } {
    const dims = this.#dimensions, positions = this.#positions;
    let sum = 0, nonZero = 0;
    const bits = vector.length === dims ? bitsOf(vector) : null;
    if (bits !== null) {
      // Without a branch (which value is zero is unpredictable): every position is written, the
      // count moves past it when its bits are not 0; a +0's square adds nothing to the sum.
      for (let i = 0; i < dims; i++) {
        const b = bits[i] | 0;
        positions[nonZero] = i;
        nonZero += (b | -b) >>> 31;
        sum += vector[i] * vector[i];
      }
    }
    const norm = bits === null ? NaN : Math.sqrt(sum);
    if (!(norm > 0) || !Number.isFinite(norm)) {
      throw new SimulacraError(
        "invalid_request",
        `Cannot ${action} this vector: it ${embeddingProblem(vector, dims)}`,
      );
    }
    // Counted again as divided: a tiny value can divide to +0 (which packing leaves out).
    const start = row * dims, rows = this.#rows, out = this.#bits, at = this.#at;
    let count = 0;
    for (let k = 0; k < nonZero; k++) {
      const j = positions[k], i = start + j;
      rows[i] = vector[j] / norm;
      const b = out[i] | 0;
      at[start + count] = j;
      count += (b | -b) >>> 31;
    }
    return { unit: rows.subarray(start, start + dims), at: at.subarray(start, start + count) };
  }
}

/** The first byte of a sparse stored vector (dense ones have no header). */
const SPARSE = 1;
/** Sparse bytes: the header byte, the dimension (u16), then (index u16, value f32) per non-zero. */
const HEADER = 3;
const PAIR = 6;

/**
 * A vector's stored bytes, little-endian: its float32 values, or, when that is smaller, its
 * non-zero values with their indices. The local embedder's vectors (feature hashing) have about
 * 64 non-zeros of 384: ~0.4 KB instead of 1.5 KB, which also keeps the KV row within SQLite's
 * page (a 1.5 KB value spills into a 4 KB overflow page of its own). A sparse value always has
 * an odd length and a dense one a multiple of 4, so either reads back; the floats are the same.
 */
export function toBytes(unit: Float32Array): Uint8Array {
  const bits = bitsOf(unit);
  let nonZero = 0;
  for (let i = 0; i < bits.length; i++) if (bits[i] !== 0) nonZero++;
  const sparseLength = HEADER + PAIR * nonZero;
  if (sparseLength >= unit.byteLength || unit.length > 0xffff) {
    // A view: `unit` must not change while it is written (the index's units are its own copies).
    return new Uint8Array(unit.buffer, unit.byteOffset, unit.byteLength);
  }
  const bytes = new Uint8Array(sparseLength);
  const view = new DataView(bytes.buffer);
  bytes[0] = SPARSE;
  view.setUint16(1, unit.length, true);
  let at = HEADER;
  for (let i = 0; i < bits.length; i++) {
    if (bits[i] === 0) continue;
    view.setUint16(at, i, true);
    view.setUint32(at + 2, bits[i], true);
    at += PAIR;
  }
  return bytes;
}

/**
 * The bits of `vector`'s values (a view). +0 is what a sparse vector leaves out, and the only
 * float32 whose bits are 0 (-0 is kept, so every float reads back bit for bit); testing the bits
 * costs less than `x === 0 && 1 / x > 0` of each value (an import tests 384 a memory, twice).
 */
export function bitsOf(vector: Float32Array): Uint32Array {
  return new Uint32Array(vector.buffer, vector.byteOffset, vector.length);
}

/** The dimension of stored bytes (see {@linkcode toBytes}), to check before reading them. */
export function storedDimensions(bytes: Uint8Array): number {
  if (bytes.length % 2 === 0) return bytes.length / 4;
  if (bytes[0] !== SPARSE || (bytes.length - HEADER) % PAIR !== 0) return -1;
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint16(1, true);
}

/** The vector of stored bytes (see {@linkcode toBytes}). */
export function fromBytes(bytes: Uint8Array): Float32Array {
  // Copy: a stored value's bytes need not be 4-byte aligned.
  if (bytes.length % 2 === 0) return new Float32Array(bytes.slice().buffer);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vector = new Float32Array(view.getUint16(1, true));
  for (let at = HEADER; at < bytes.length; at += PAIR) {
    vector[view.getUint16(at, true)] = view.getFloat32(at + 2, true);
  }
  return vector;
}
