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
    model: "local-hash-v2",
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

Deno.test("LocalEmbedder.embed() embeds stop-word-only text and empty text as unit vectors", async () => {
  const embedder = new LocalEmbedder();
  const [who, empty] = (await embedder.embed(["Who is there?", ""], attribution)).vectors;
  assert.ok(Math.abs(norm(who) - 1) < 1e-5);
  assert.ok(Math.abs(norm(empty) - 1) < 1e-5, "no zero vector, which stores reject");
});

Deno.test("LocalEmbedder.embed() gives text without letters a unit vector near its own kind", async () => {
  const embedder = new LocalEmbedder();
  const [bang, smile, smile2, blank] = (await embedder.embed(
    ["!!!", "🙂", "🙂🙂", "   "],
    attribution,
  )).vectors;
  for (const v of [bang, smile, smile2, blank]) assert.ok(Math.abs(norm(v) - 1) < 1e-5);
  assert.ok(cosine(smile, smile2) > 0.9);
  assert.ok(cosine(smile, bang) < 0.5);
});

Deno.test("LocalEmbedder.embed() matches word forms: irregular pasts, plurals, derived words", async () => {
  const { recallAtK } = await import("../../bench/embedder_word_forms.ts");
  // 0.79 before word forms were handled (irregular pasts, stem prefixes); see BENCHMARKS.md.
  const { recall, missed } = await recallAtK(new LocalEmbedder(), 5);
  assert.ok(recall >= 0.95, `recall@5 ${recall}; missed: ${missed.join("; ")}`);
  const embedder = new LocalEmbedder();
  const [lost, lose, other] = (await embedder.embed(
    ["I lost my red scarf at the park", "What did I lose?", "What did I eat?"],
    attribution,
  )).vectors;
  assert.ok(cosine(lost, lose) > cosine(lost, other) + 0.1);
});
