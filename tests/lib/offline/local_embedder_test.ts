/** @module Tests of LocalEmbedder: determinism, unit length and lexical similarity. */
import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../lib/offline/local_embedder.ts";

const attribution = { worldId: "w-local", operation: "memory.embed" };

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot;
}

function norm(a: Float32Array): number {
  return Math.sqrt(cosine(a, a));
}

Deno.test("LocalEmbedder.info reports the local mode, model and dimension", () => {
  assert.deepEqual(new LocalEmbedder().info, {
    mode: "local",
    model: "local-hash-v1",
    dimensions: 384,
  });
  assert.equal(new LocalEmbedder({ dimensions: 64 }).info.dimensions, 64);
  assert.throws(() => new LocalEmbedder({ dimensions: 0 }), RangeError);
});

Deno.test("LocalEmbedder.embed() returns one unit-length vector per text, free of charge", async () => {
  const embedder = new LocalEmbedder({ dimensions: 128 });
  const texts = ["Isabella is planning a party", "Klaus is reading", "The stove is burning"];
  const { vectors, usage } = await embedder.embed(texts, attribution);
  assert.equal(vectors.length, 3);
  for (const vector of vectors) {
    assert.ok(vector instanceof Float32Array);
    assert.equal(vector.length, 128);
    assert.ok(Math.abs(norm(vector) - 1) < 1e-5);
  }
  assert.deepEqual(usage, { calls: 0, promptTokens: 0, completionTokens: 0 });
});

Deno.test("LocalEmbedder.embed() is deterministic across instances", async () => {
  const text = "Maria Lopez is studying for her physics exam at the library";
  const a = await new LocalEmbedder().embed([text], attribution);
  const b = await new LocalEmbedder().embed([text], attribution);
  assert.deepEqual(a.vectors[0], b.vectors[0]);
});

Deno.test("LocalEmbedder.embed() gives texts sharing words or stems a clearly higher cosine", async () => {
  const embedder = new LocalEmbedder();
  const pairs: [string, string, string][] = [
    [
      "Isabella is planning a Valentine's Day party at Hobbs Cafe",
      "Isabella plans the parties for Valentine's Day",
      "Klaus is brushing his teeth in the bathroom",
    ],
    [
      "Sam Moore is running for mayor in the local election",
      "Sam runs in the mayoral election",
      "The coffee machine is brewing coffee",
    ],
    [
      "Klaus is writing a research paper on gentrification",
      "Klaus wrote his research papers",
      "Abigail is painting a landscape",
    ],
  ];
  for (const [text, related, unrelated] of pairs) {
    const [a, b, c] = (await embedder.embed([text, related, unrelated], attribution)).vectors;
    const near = cosine(a, b);
    const far = cosine(a, c);
    assert.ok(near > 0.4, `"${text}" ~ "${related}": ${near}`);
    assert.ok(Math.abs(far) < 0.15, `"${text}" ~ "${unrelated}": ${far}`);
    assert.ok(near - far > 0.3);
  }
});

Deno.test("LocalEmbedder.embed() matches inflected forms through the stemmer", async () => {
  const embedder = new LocalEmbedder();
  const [a, b] = (await embedder.embed(["the parties", "a party"], attribution)).vectors;
  assert.ok(cosine(a, b) > 0.99);
});

Deno.test("LocalEmbedder.embed() embeds stop-word-only text and empty text without NaN", async () => {
  const embedder = new LocalEmbedder();
  const [who, empty] = (await embedder.embed(["Who is there?", ""], attribution)).vectors;
  assert.ok(Math.abs(norm(who) - 1) < 1e-5);
  assert.ok(empty.every((x) => x === 0));
});
