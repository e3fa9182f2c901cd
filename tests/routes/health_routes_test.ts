/**
 * `GET /health` (cheap liveness) and `GET /health?deep=true` (store, model endpoint and embedding
 * endpoint checked; 503 naming the part that failed) on both storage backends, with the real
 * OpenAI clients against the fake OpenAI server.
 */
import assert from "node:assert/strict";
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import { silentLogger } from "../../lib/logger.ts";
import { OpenAiEmbedder } from "../../lib/openai/openai_embedder.ts";
import { OpenAiLanguageModel } from "../../lib/openai/openai_language_model.ts";
import { openUpstashStorage } from "../../lib/upstash/upstash_storage.ts";
import { createApp } from "../../routes/app.ts";
import type { Storage } from "../../src/ports/storage.ts";
import { sanitizersFor } from "../_helpers/backend_app.ts";
import { type Backend, startBackends, startLocalUpstash } from "../_helpers/backends.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();
addEventListener("unload", () => void close());

function openAiClients(baseURL: string) {
  const common = { apiKey: "test-key", baseURL, maxRetries: 0, timeoutMs: 2_000 };
  return {
    model: new OpenAiLanguageModel({ ...common, mainModel: "fake-main", fastModel: "fake-fast" }),
    embedder: new OpenAiEmbedder({ ...common, model: "fake-embedding", dimensions: 384 }),
  };
}

/** A store of this backend whose server then goes away. */
async function storeThatGoesDown(
  backend: Backend,
): Promise<{ storage: Storage; down(): Promise<void> }> {
  if (backend.name === "embedded") {
    const storage = await backend.open();
    return { storage, down: () => storage.close() };
  }
  const local = await startLocalUpstash("down-token");
  const { UPSTASH_REDIS_REST_URL: redisUrl, UPSTASH_VECTOR_REST_URL: vectorUrl } = local.env;
  const storage = await openUpstashStorage({
    redisUrl,
    redisToken: "down-token",
    vectorUrl,
    vectorToken: "down-token",
  });
  return { storage, down: () => local.close() };
}

for (const backend of backends) {
  Deno.test({
    name:
      `GET /health stays cheap and GET /health?deep=true checks every dependency (${backend.name})`,
    ...sanitizersFor(backend),
    async fn() {
      await using fake = await startFakeOpenAi();
      await using deps = await makeTestDeps({
        storage: await backend.open(),
        ...openAiClients(fake.url),
      });
      const app = createApp(deps, { logger: silentLogger });

      const cheap = await app.request("/health");
      assert.equal(cheap.status, 200);
      const cheapBody = await cheap.json();
      assert.equal(cheapBody.storage, backend.name);
      assert.equal(cheapBody.checks, undefined);
      assert.equal(fake.requests.length, 0, "liveness does not call the model endpoint");

      const deep = await app.request("/health?deep=true");
      assert.equal(deep.status, 200);
      const { checks } = await deep.json();
      assert.equal(checks.store.status, "ok");
      assert.equal(checks.model.status, "ok");
      assert.equal(checks.embedder.status, "ok");
      // The fake records chat and embedding calls only: the checks list models, spending nothing.
      assert.equal(fake.requests.length, 0, "the deep check spends no tokens");

      const bad = await app.request("/health?deep=yes");
      assert.equal(bad.status, 400);
      assert.equal((await bad.json()).error.code, "invalid_request");
    },
  });

  Deno.test({
    name:
      `GET /health?deep=true answers 503 naming the model endpoint when it is down (${backend.name})`,
    ...sanitizersFor(backend),
    async fn() {
      const fake = await startFakeOpenAi();
      await using deps = await makeTestDeps({
        storage: await backend.open(),
        ...openAiClients(fake.url),
      });
      const app = createApp(deps, { logger: silentLogger });
      await fake.close();

      assert.equal((await app.request("/health")).status, 200, "liveness still answers");
      const res = await app.request("/health?deep=true");
      assert.equal(res.status, 503);
      const { error } = await res.json();
      assert.equal(error.code, "unhealthy");
      assert.deepEqual(error.details.failed, ["model", "embedder"]);
      assert.equal(error.details.checks.store.status, "ok");
      assert.match(error.message, /model and embedder failed/);
      assert.match(error.details.checks.model.message, /cannot connect to .*127\.0\.0\.1/);
    },
  });

  Deno.test({
    name: `GET /health?deep=true answers 503 naming the store when it is down (${backend.name})`,
    ...sanitizersFor(backend),
    async fn() {
      const store = await storeThatGoesDown(backend);
      await using deps = await makeTestDeps({ storage: store.storage });
      const app = createApp(deps, { logger: silentLogger });
      assert.equal((await app.request("/health?deep=true")).status, 200);
      await store.down();

      const res = await app.request("/health?deep=true");
      assert.equal(res.status, 503);
      const { error } = await res.json();
      assert.equal(error.code, "unhealthy");
      assert.deepEqual(error.details.failed, ["store"]);
      assert.equal(error.details.checks.model.status, "local", "the offline model has no endpoint");
      assert.match(error.message, /the store failed the check/);
      assert.equal((await app.request("/health")).status, 503, "liveness fails with the store");
    },
  });
}
