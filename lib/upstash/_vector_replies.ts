/**
 * @module Private to lib/upstash: how Upstash Vector's answers read: its scores as cosines, and a
 * namespace that does not exist as nothing stored.
 */

import { embeddingProblem, SimulacraError } from "../../src/domain/mod.ts";
import type { VectorEntry } from "../../src/ports/mod.ts";

/** The index's similarity function, from `info()`. */
export type Similarity = "COSINE" | "EUCLIDEAN" | "DOT_PRODUCT";

/** The cosine behind an Upstash score (unit-length vectors for DOT_PRODUCT and EUCLIDEAN). */
export function toCosine(score: number, similarity: Similarity): number {
  // EUCLIDEAN: score = 1 / (1 + d²) and d² = 2 - 2·cos for unit vectors.
  if (similarity === "EUCLIDEAN") return score <= 0 ? -1 : 1 - (1 / score - 1) / 2;
  return 2 * score - 1;
}

/**
 * Runs a call on a namespace that may not exist yet (an agent with no vectors): Upstash
 * answers those with an error, which here means "nothing stored".
 */
export async function ifNamespaceExists<T>(call: () => Promise<T>, empty: T): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const message = error instanceof Error ? error.message : "";
    if (/namespace/i.test(message) && /(not exist|not found)/i.test(message)) return empty;
    throw error;
  }
}

/** Throws `invalid_request` when `vector` has not the index's `dimensions`. */
export function checkDimensions(
  vector: Float32Array,
  { dimensions, what }: { dimensions: number; what: string },
): void {
  if (vector.length !== dimensions) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot use the embedding of ${what}: it has ${vector.length} dimensions, the vector index has ${dimensions}`,
      { details: { dimensions: vector.length, expected: dimensions } },
    );
  }
}

/** Throws `invalid_request` naming the first entry whose vector cannot be stored. */
export function checkStorable(entries: readonly VectorEntry[], dimensions: number): void {
  for (const entry of entries) {
    const problem = embeddingProblem(entry.vector, dimensions);
    if (problem !== null) {
      throw new SimulacraError(
        "invalid_request",
        `Cannot store the embedding of memory "${entry.id}": it ${problem}`,
        { details: { dimensions: entry.vector.length, expected: dimensions } },
      );
    }
  }
}
