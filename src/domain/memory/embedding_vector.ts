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
