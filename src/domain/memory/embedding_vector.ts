/**
 * @module What makes a vector usable as a memory's embedding, the one rule every store and the
 * import apply: the index's dimensions, and a direction (relevance is a cosine, which a zero or
 * non-finite vector does not have: such a memory could never be found by its own text).
 */

/** The vector's Euclidean length (NaN or Infinity when an element is not finite). */
export function vectorNorm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i] * vector[i];
  return Math.sqrt(sum);
}

/**
 * Why `vector` cannot be stored as an embedding of `dimensions` (a phrase to follow "the
 * embedding …"), or null when it can.
 */
export function embeddingProblem(vector: ArrayLike<number>, dimensions: number): string | null {
  if (vector.length !== dimensions) {
    return `has ${vector.length} dimensions, not ${dimensions}`;
  }
  const norm = vectorNorm(vector);
  if (!(norm > 0) || !Number.isFinite(norm)) {
    return "is zero or not finite: an embedding has a direction";
  }
  return null;
}

/**
 * Whether `vector` has `dimensions` values and {@linkcode embeddingProblem} finds none in it,
 * told from the float32 bits without the norm (an import checks every memory's vector; the store
 * computes the norm again to divide by it): the sum of float32 squares in a float64 neither
 * overflows nor rounds to zero, so the norm is positive and finite exactly when a value is not
 * ±0 and none is infinite or NaN (all exponent bits set).
 */
export function isUsableEmbedding(vector: Float32Array, dimensions: number): boolean {
  if (vector.length !== dimensions) return false;
  const bits = new Uint32Array(vector.buffer, vector.byteOffset, vector.length);
  let magnitude = 0;
  let nonFinite = false;
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i];
    magnitude |= b & 0x7fffffff;
    if ((b & 0x7f800000) === 0x7f800000) nonFinite = true;
  }
  return magnitude !== 0 && !nonFinite;
}
