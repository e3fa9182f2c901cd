import assert from "node:assert/strict";
// Test-only dependency, kept out of deno.json so `deno task start` does not install it.
// deno-lint-ignore no-import-prefix
import SwaggerParser from "npm:@apidevtools/swagger-parser@13.1.0";
import { jsonLogger, silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { StoreUnavailableError } from "../../src/domain/errors.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const ADMIN_KEY = "test-admin-key-0123456789";

function postJson(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

async function assertError(res: Response, status: number, code: string): Promise<string> {
  assert.equal(res.status, status);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  const body = await res.json();
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, "string");
  assert.ok(body.error.message.length > 10);
  return JSON.stringify(body);
}

Deno.test("GET /health reports the version, backends and the offline model", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const res = await app.request("/health");
  assert.equal(res.status, 200);
  const body = await res.json();
  assert.equal(body.status, "ok");
  assert.equal(body.storage, "embedded");
  assert.equal(body.model.mode, "offline");
  assert.equal(body.model.embedding, "local-hash-v2");
  assert.equal(body.embedding.dimensions, 384);
  assert.equal(body.cron, null);
});

Deno.test("GET /openapi.json is a valid OpenAPI 3.1 document", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const doc = await (await app.request("/openapi.json")).json();
  assert.equal(doc.openapi, "3.1.0");
  assert.ok(doc.paths["/v1/worlds"].post);
  assert.ok(doc.paths["/health"].get);
  assert.ok(doc.components.schemas.Error);
  await SwaggerParser.validate(structuredClone(doc));
});

Deno.test("GET /docs and GET / are self-contained pages with no CDN assets", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  for (const path of ["/docs", "/"]) {
    const res = await app.request(path);
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.doesNotMatch(html, /<(script|link)[^>]+(src|href)=["']https?:/);
  }
  // The playground reads the model mode from /health and labels the offline stand-in (checked in
  // Chromium by tests/playground/playground_browser_test.ts).
  assert.match(await (await app.request("/")).text(), /\/playground\/js\/main\.js/);
});

Deno.test("createApp() answers every error path with the JSON error shape", async (t) => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger, maxBodyBytes: 1024 });

  await t.step("unknown route → 404 route_not_found", async () => {
    await assertError(await app.request("/v1/nowhere"), 404, "route_not_found");
  });
  await t.step("malformed JSON → 400 malformed_json", async () => {
    await assertError(
      await app.request("/v1/worlds", postJson("{not json")),
      400,
      "malformed_json",
    );
  });
  await t.step("unknown field → 400 invalid_request naming it", async () => {
    const text = await assertError(
      await app.request(
        "/v1/worlds",
        postJson({ name: "A", startTime: "2023-02-13T07:00:00", colour: 1 }),
      ),
      400,
      "invalid_request",
    );
    assert.match(text, /unrecognized_keys/);
  });
  await t.step("malformed game time → 400 invalid_request at startTime", async () => {
    const text = await assertError(
      await app.request("/v1/worlds", postJson({ name: "A", startTime: "2023-02-30T07:00:00" })),
      400,
      "invalid_request",
    );
    assert.match(text, /startTime/);
  });
  await t.step("body too large → 413 payload_too_large", async () => {
    const big = { name: "x".repeat(2048), startTime: "2023-02-13T07:00:00" };
    await assertError(await app.request("/v1/worlds", postJson(big)), 413, "payload_too_large");
  });
  await t.step("unknown world → 404 world_not_found", async () => {
    await assertError(await app.request("/v1/worlds/nope"), 404, "world_not_found");
  });
  await t.step("duplicate world id → 409 conflict", async () => {
    const body = { id: "dup", name: "A", startTime: "2023-02-13T07:00:00" };
    assert.equal((await app.request("/v1/worlds", postJson(body))).status, 201);
    await assertError(await app.request("/v1/worlds", postJson(body)), 409, "conflict");
  });
});

Deno.test("createApp() maps store failures to 503 and unexpected errors to 500 without a stack", async () => {
  await using deps = await makeTestDeps();
  const lines: string[] = [];
  const logger = jsonLogger({ write: (line) => lines.push(line) });
  const failing = (err: Error) => ({
    ...deps,
    storage: {
      ...deps.storage,
      documents: { ...deps.storage.documents, list: () => Promise.reject(err) },
    },
  });
  const down = createApp(failing(new StoreUnavailableError("Cannot reach Upstash Redis")), {
    logger,
  });
  await assertError(await down.request("/v1/worlds"), 503, "store_unavailable");

  const broken = createApp(failing(new TypeError("boom at secret place")), { logger });
  const text = await assertError(await broken.request("/v1/worlds"), 500, "internal_error");
  assert.doesNotMatch(text, /boom|at .*\.ts|TypeError/);
  assert.ok(lines.some((l) => l.includes("unexpected error")), "the error is logged once");
});

Deno.test("accessControl() guards /v1 with the admin key and leaves /health open", async () => {
  await using deps = await makeTestDeps();
  const lines: string[] = [];
  const app = createApp(deps, {
    adminKey: ADMIN_KEY,
    logger: jsonLogger({ write: (line) => lines.push(line) }),
  });
  await assertError(await app.request("/v1/worlds"), 401, "unauthorized");
  await assertError(
    await app.request("/v1/worlds", { headers: { authorization: "Bearer wrong-key-wrong-key" } }),
    403,
    "forbidden",
  );
  const ok = await app.request("/v1/worlds", { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  assert.equal(ok.status, 200);
  assert.equal((await app.request("/health")).status, 200);
  assert.ok(lines.length >= 4, "every request is logged");
  assert.ok(lines.every((l) => !l.includes(ADMIN_KEY)), "the key never reaches the logs");
  const line = JSON.parse(lines[0]);
  assert.equal(line.msg, "request");
  assert.equal(typeof line.requestId, "string");
});

Deno.test("POST /v1/worlds creates a world that GET lists and reads back", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const res = await app.request(
    "/v1/worlds",
    postJson({ id: "smallville", name: "Smallville", startTime: "2023-02-13T07:00:00" }),
  );
  assert.equal(res.status, 201);
  const created = await res.json();
  assert.equal(created.id, "smallville");
  assert.equal(created.name, "Smallville");
  assert.deepEqual(created.clock, {
    now: "2023-02-13T07:00:00",
    minutesPerTick: 10,
    mode: "cron",
    paused: false,
  });
  assert.equal(created.settings.reflectionThreshold, 150, "the paper's default threshold");
  assert.equal(created.settings.recencyDecay, 0.995);
  assert.equal(created.settings.retrievalWeights, "paper");
  const minted = await (await app.request(
    "/v1/worlds",
    postJson({ name: "Other", startTime: "2023-02-13T07:00:00", minutesPerTick: 5 }),
  )).json();
  assert.match(minted.id, /^w_/);
  const list = await (await app.request("/v1/worlds")).json();
  assert.deepEqual(
    list.worlds.map((w: { id: string }) => w.id).sort(),
    [minted.id, "smallville"].sort(),
  );
  const usage = await (await app.request("/v1/worlds/smallville/usage")).json();
  assert.deepEqual(usage.total, {
    calls: 0,
    promptTokens: 0,
    completionTokens: 0,
    cachedPromptTokens: 0,
  });
});
