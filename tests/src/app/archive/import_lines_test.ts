/**
 * An import's line check leaves a memory line's decoded embedding out of its search for unsafe
 * text, and finds every unsafe string all the same: before the embedding, escaped, or with the
 * embedding written otherwise than an export writes it.
 */
import assert from "node:assert/strict";
import { parseBodyText } from "../../../../src/app/archive/_import_lines.ts";
import { encodeVector, VectorArena } from "../../../../src/domain/archive/mod.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";

const vector = new Float32Array([0, 0.6, 0, 0.8]);
const embedding = encodeVector(vector);
const line = (description: string, tail = `"embedding":${JSON.stringify(embedding)}}`) =>
  `{"type":"memory","memory":{"id":"m1","description":${JSON.stringify(description)}},${tail}`;

/** The error's details when the line is refused, else null. */
function refusal(text: string): Record<string, unknown> | null {
  try {
    parseBodyText(text, { n: 7, dimensions: 4, arena: new VectorArena() });
    return null;
  } catch (error) {
    assert.ok(error instanceof SimulacraError);
    return error.details as Record<string, unknown>;
  }
}

Deno.test("parseBodyText() decodes an export's embedding and checks the rest of the line", () => {
  const { json, vector: decoded } = parseBodyText(line("A quiet morning"), {
    n: 2,
    dimensions: 4,
  });
  assert.deepEqual(decoded, vector);
  assert.equal((json as { embedding: string }).embedding, embedding);
  for (
    const description of [
      "C1 \u0085 control",
      "DEL \u007f",
      "back\bspace",
      "form\ffeed",
      "nul \u0000",
      "lone \ud800 surrogate",
    ]
  ) {
    assert.deepEqual(refusal(line(description)), { line: 7, path: "memory.description" });
  }
  // The key's text inside the description is no embedding.
  assert.equal(refusal(line(`"embedding":"${embedding}"`)), null);
});

Deno.test("parseBodyText() searches the whole line when the embedding is not an export's", () => {
  // The embedding's first letter escaped: the same string, but not the text an export writes.
  const escaped = `"embedding":"\\u00${embedding.charCodeAt(0).toString(16)}${
    embedding.slice(1)
  }"}`;
  assert.equal(refusal(line("fine", escaped)), null);
  assert.ok(refusal(line("C1 \u0085", escaped)) !== null);
  // Not last, and after a bad string.
  const first = `{"type":"memory","embedding":"${embedding}","memory":{"d":"x\\u0007"}}`;
  assert.equal(refusal(first)?.path, "memory.d");
  // An embedding that does not decode is searched as text.
  const controlled = line("fine", `"embedding":"${embedding.slice(0, -4)}\\u0007AA="}`);
  assert.equal(refusal(controlled)?.path, "embedding");
  // Trailing text after the embedding is searched too.
  const trailing = line("fine", `"embedding":"${embedding}","x":"\\u0085"}`);
  assert.equal(refusal(trailing)?.path, "x");
});
