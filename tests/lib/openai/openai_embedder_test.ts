/** @module Tests of OpenAiEmbedder over real HTTP against the fake OpenAI server. */
import assert from "node:assert/strict";
import { fakeEmbedding } from "../../../dev/fake_openai_server.ts";
import { OpenAiEmbedder, type OpenAiEmbedderOptions } from "../../../lib/openai/openai_embedder.ts";
import { countTextTokens } from "../../../lib/openai/token_count.ts";
import { type FakeOpenAiRun, withFakeOpenAi } from "../../_helpers/fake_model.ts";
import { ConfigError, ModelUnavailableError } from "../../../src/domain/errors.ts";

const API_KEY = "sk-embed-secret-456";
const attribution = { worldId: "w-embed", agentId: "isabella", operation: "memory.embed" };

type Harness = Omit<FakeOpenAiRun<OpenAiEmbedder>, "client"> & { embedder: OpenAiEmbedder };

function withEmbedder(
  options: Partial<OpenAiEmbedderOptions>,
  run: (harness: Harness) => Promise<void>,
): Promise<void> {
  return withFakeOpenAi(
    (on) =>
      new OpenAiEmbedder({
        apiKey: API_KEY,
        ...on,
        model: "fake-embedding",
        dimensions: 64,
        ...options,
      }),
    ({ client, ...rest }) => run({ ...rest, embedder: client }),
  );
}

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i] * b[i];
  return dot / (norm(a) * norm(b));
}

Deno.test("OpenAiEmbedder.info uses the configured or the model's native dimension", () => {
  const known = new OpenAiEmbedder({ apiKey: "k", model: "text-embedding-3-small" });
  assert.deepEqual(known.info, {
    mode: "openai",
    model: "text-embedding-3-small",
    dimensions: 1536,
  });
  const custom = new OpenAiEmbedder({ apiKey: "k", model: "nomic-embed-text", dimensions: 768 });
  assert.equal(custom.info.dimensions, 768);
});

Deno.test("OpenAiEmbedder constructor names SIMULACRA_EMBEDDING_DIMENSIONS for an unknown model", () => {
  assert.throws(
    () => new OpenAiEmbedder({ apiKey: "k", model: "nomic-embed-text" }),
    (error: unknown) =>
      error instanceof ConfigError && /SIMULACRA_EMBEDDING_DIMENSIONS/.test(error.message),
  );
});

Deno.test("OpenAiEmbedder.embed() decodes base64 answers into unit-length vectors in order", async () => {
  await withEmbedder({}, async ({ fake, embedder }) => {
    const texts = ["Isabella is planning a party", "Klaus is reading", "the stove is on fire"];
    const { vectors } = await embedder.embed(texts, attribution);

    assert.equal(fake.requests.length, 1);
    const body = fake.requests[0].body as { encoding_format: string; dimensions: number };
    assert.equal(body.encoding_format, "base64");
    assert.equal(body.dimensions, 64);
    assert.equal(vectors.length, 3);
    texts.forEach((text, i) => {
      assert.ok(vectors[i] instanceof Float32Array);
      assert.equal(vectors[i].length, 64);
      assert.ok(Math.abs(norm(vectors[i]) - 1) < 1e-5, "unit length");
      assert.ok(cosine(vectors[i], fakeEmbedding(text, 64)) > 0.99999, "same direction");
    });
    assert.ok(norm(fakeEmbedding(texts[0], 64)) > 1.5, "the fake's raw vectors are not unit");
  });
});

Deno.test("OpenAiEmbedder.embed() accepts float-array answers too", async () => {
  const asFloats: typeof fetch = (input, init) => {
    const body = JSON.parse(String(init?.body));
    return fetch(input, { ...init, body: JSON.stringify({ ...body, encoding_format: "float" }) });
  };
  await withEmbedder({ fetch: asFloats }, async ({ fake, embedder }) => {
    const { vectors } = await embedder.embed(["a quiet morning"], attribution);
    assert.equal((fake.requests[0].body as { encoding_format: string }).encoding_format, "float");
    assert.ok(Math.abs(norm(vectors[0]) - 1) < 1e-5);
    assert.ok(cosine(vectors[0], fakeEmbedding("a quiet morning", 64)) > 0.99999);
  });
});

Deno.test("OpenAiEmbedder.embed() reports the server's usage with the attribution", async () => {
  await withEmbedder({}, async ({ embedder, records }) => {
    const texts = ["abcdefgh", "abcd"];
    const { usage } = await embedder.embed(texts, attribution);
    // The fake counts a token per 4 characters.
    assert.deepEqual(usage, { calls: 1, promptTokens: 3, completionTokens: 0 });
    assert.deepEqual(records, [{
      ...attribution,
      calls: 1,
      promptTokens: 3,
      completionTokens: 0,
      model: "fake-embedding",
      estimated: false,
    }]);
  });
});

Deno.test("OpenAiEmbedder.embed() counts tokens itself when the server reports no usage", async () => {
  await withEmbedder({}, async ({ fake, embedder, records }) => {
    fake.scriptEmbeddings({ usage: false });
    const texts = ["Isabella Rodriguez is decorating Hobbs Cafe", "Klaus"];
    const { usage } = await embedder.embed(texts, attribution);
    const expected = countTextTokens(texts[0]) + countTextTokens(texts[1]);
    assert.equal(usage.promptTokens, expected);
    assert.equal(records[0].estimated, true);
  });
});

Deno.test("OpenAiEmbedder.embed() rejects vectors of another dimension naming the setting", async () => {
  await withEmbedder({}, async ({ fake, embedder }) => {
    fake.scriptEmbeddings({ dimensions: 8 });
    await assert.rejects(
      embedder.embed(["hello"], attribution),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes("SIMULACRA_EMBEDDING_DIMENSIONS=8") &&
        error.message.includes("not 64"),
    );
  });
});

Deno.test("OpenAiEmbedder.embed() splits more than 2048 texts into several requests", async () => {
  await withEmbedder({ dimensions: 4 }, async ({ fake, embedder, records }) => {
    const texts = Array.from({ length: 2050 }, (_, i) => `observation number ${i}`);
    const { vectors, usage } = await embedder.embed(texts, attribution);
    assert.equal(vectors.length, 2050);
    assert.deepEqual(fake.requests.map((r) => r.input?.length), [2048, 2]);
    assert.equal(usage.calls, 2);
    assert.equal(records.length, 2);
    assert.ok(cosine(vectors[2049], fakeEmbedding(texts[2049], 4)) > 0.99999);
  });
});

Deno.test("OpenAiEmbedder.embed() makes no request for no texts", async () => {
  await withEmbedder({}, async ({ fake, embedder }) => {
    const result = await embedder.embed([], attribution);
    assert.deepEqual(result, {
      vectors: [],
      usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    });
    assert.equal(fake.requests.length, 0);
  });
});

Deno.test("OpenAiEmbedder.embed() retries a 503 and a 429", async () => {
  await withEmbedder({}, async ({ fake, embedder, sleeps }) => {
    fake.scriptEmbeddings({ status: 503 }, { status: 429, retryAfter: 1 });
    const { vectors } = await embedder.embed(["retry me"], attribution);
    assert.equal(vectors.length, 1);
    assert.equal(fake.requests.length, 3);
    assert.equal(sleeps.length, 2);
    assert.equal(sleeps[1], 1000);
  });
});

Deno.test("OpenAiEmbedder.embed() throws model_timeout without leaking the key", async () => {
  await withEmbedder({ timeoutMs: 200, maxRetries: 1 }, async ({ fake, embedder }) => {
    fake.scriptEmbeddings({ hang: true }, { hang: true });
    const error = await embedder.embed(["slow"], attribution).then(
      () => assert.fail("expected a rejection"),
      (e: unknown) => e,
    );
    assert.ok(error instanceof ModelUnavailableError);
    assert.equal(error.code, "model_timeout");
    assert.equal(fake.requests.length, 2);
    assert.ok(!`${error.message} ${JSON.stringify(error.details)}`.includes(API_KEY));
  });
});
