/** @module Private to lib/kv: the unit-length vectors the embedded index keeps, and their stored bytes. */
import { embeddingProblem, SimulacraError, vectorNorm } from "../../src/domain/mod.ts";

/**
 * A unit-length copy of `vector`, or `invalid_request` when its length is not `dimensions` or it
 * is zero or not finite; `action` names what was asked in the error, e.g. "query with".
 */
export function unitVector(
  vector: Float32Array,
  { dimensions, action }: { dimensions: number; action: string },
): Float32Array {
  const norm = vectorNorm(vector);
  // The norm decides, as embeddingProblem would (computed once: imports normalise every vector).
  if (vector.length !== dimensions || !(norm > 0) || !Number.isFinite(norm)) {
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
 * A vector's little-endian float32 bytes, as stored in KV: a view, so `unit` must not change
 * while they are written (the index's units are its own copies).
 */
export function toBytes(unit: Float32Array): Uint8Array {
  return new Uint8Array(unit.buffer, unit.byteOffset, unit.byteLength);
}

/** The vector of stored bytes. */
export function fromBytes(bytes: Uint8Array): Float32Array {
  // Copy: a stored value's bytes need not be 4-byte aligned.
  return new Float32Array(bytes.slice().buffer);
}
