/** The import's check of a vector by its bits agrees with the norm's, value for value. */
import assert from "node:assert/strict";
import {
  embeddingProblem,
  isUsableEmbedding,
} from "../../../../src/domain/memory/embedding_vector.ts";

Deno.test("isUsableEmbedding() agrees with embeddingProblem() on edge values", () => {
  const edges = [
    0,
    -0,
    1,
    -1,
    0.5,
    Number.NaN,
    Infinity,
    -Infinity,
    1.4e-45,
    -1.4e-45,
    1.1754942e-38,
    3.4028234e38,
    -3.4028234e38,
    1e-30,
  ];
  const cases: Float32Array[] = [new Float32Array(0), new Float32Array(4)];
  for (const a of edges) {
    for (const b of edges) {
      cases.push(new Float32Array([a, 0, b, -0]));
      cases.push(new Float32Array(384).fill(a).fill(b, 200));
    }
  }
  // Every value at its largest: the float64 sum of squares stays finite.
  cases.push(new Float32Array(4096).fill(3.4028234e38));
  // NaN with other bit patterns.
  const odd = new Float32Array([1, 0, 0, 0]);
  new Uint32Array(odd.buffer)[2] = 0x7fc00001;
  cases.push(odd, new Float32Array(new Uint32Array([0xff800001, 0, 0, 0]).buffer));
  // A view into a larger buffer.
  cases.push(new Float32Array([Number.NaN, 0, 0.25, 0, 0]).subarray(1));
  for (const vector of cases) {
    for (const dimensions of [4, vector.length]) {
      assert.equal(
        isUsableEmbedding(vector, dimensions),
        embeddingProblem(vector, dimensions) === null,
        `${Array.from(vector.slice(0, 4))}… (${vector.length}) as ${dimensions}`,
      );
    }
  }
});
