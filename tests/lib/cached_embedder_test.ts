import assert from "node:assert/strict";
import { CachedEmbedder } from "../../lib/cached_embedder.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import type { Embedder } from "../../src/ports/embedder.ts";

function counting(): { embedder: Embedder; batches: string[][] } {
  const inner = new LocalEmbedder({ dimensions: 16 });
  const batches: string[][] = [];
  return {
    batches,
    embedder: {
      info: inner.info,
      embed(texts, attribution) {
        batches.push([...texts]);
        return inner.embed(texts, attribution);
      },
    },
  };
}

Deno.test("CachedEmbedder.embed() serves repeated texts without a call and batches the rest once", async () => {
  const { embedder, batches } = counting();
  const cached = new CachedEmbedder(embedder);
  const first = await cached.embed(["who is the mayor", "the party"], { operation: "t" });
  const again = await cached.embed(["the party", "a new text", "who is the mayor", "a new text"], {
    operation: "t",
  });
  assert.deepEqual(batches, [["who is the mayor", "the party"], ["a new text"]]);
  assert.equal(again.vectors[0], first.vectors[1]);
  assert.equal(again.vectors[2], first.vectors[0]);
  assert.equal(again.vectors[1], again.vectors[3]);
  assert.equal(cached.hits, 2);
  const none = await cached.embed(["the party"], { operation: "t" });
  assert.equal(none.usage.calls, 0);
});

Deno.test("CachedEmbedder evicts the least recently used text beyond its capacity", async () => {
  const { embedder, batches } = counting();
  const cached = new CachedEmbedder(embedder, { capacity: 2 });
  await cached.embed(["a", "b"], { operation: "t" });
  await cached.embed(["a"], { operation: "t" }); // a is now the most recent
  await cached.embed(["c"], { operation: "t" }); // evicts b
  await cached.embed(["a", "b"], { operation: "t" });
  assert.deepEqual(batches, [["a", "b"], ["c"], ["b"]]);
});
