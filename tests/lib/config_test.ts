import assert from "node:assert/strict";
import { loadConfig } from "../../lib/config.ts";
import { ConfigError } from "../../src/domain/errors.ts";

const upstash = {
  UPSTASH_REDIS_REST_URL: "https://r.example.io",
  UPSTASH_REDIS_REST_TOKEN: "rt",
  UPSTASH_VECTOR_REST_URL: "https://v.example.io",
  UPSTASH_VECTOR_REST_TOKEN: "vt",
};

function configErrorOf(env: Record<string, string>, runtime?: "deno" | "workers"): ConfigError {
  try {
    loadConfig(env, { runtime });
  } catch (err) {
    assert.ok(err instanceof ConfigError, `expected ConfigError, got ${err}`);
    return err;
  }
  assert.fail("expected loadConfig() to throw");
}

Deno.test("loadConfig() defaults to the embedded store, the offline model and the local embedder", () => {
  const config = loadConfig({});
  assert.equal(config.port, 8000);
  assert.equal(config.adminKey, undefined);
  assert.deepEqual(config.model, { mode: "offline" });
  assert.deepEqual(config.embedding, { mode: "local", dimensions: 384 });
  assert.deepEqual(config.storage, { kind: "embedded", dataDir: "./.simulacra", cacheMb: 256 });
});

Deno.test("loadConfig() reads the embedded cache budget from SIMULACRA_CACHE_MB and rejects bad ones", () => {
  assert.deepEqual(loadConfig({ SIMULACRA_CACHE_MB: "1024" }).storage, {
    kind: "embedded",
    dataDir: "./.simulacra",
    cacheMb: 1024,
  });
  for (const bad of ["lots", "1.5", "8", "-1"]) {
    const err = configErrorOf({ SIMULACRA_CACHE_MB: bad });
    assert.match(err.message, /SIMULACRA_CACHE_MB/);
  }
});

Deno.test("loadConfig() treats blank variables as unset", () => {
  const config = loadConfig({ PORT: "", OPENAI_API_KEY: "  ", UPSTASH_REDIS_REST_URL: "" });
  assert.equal(config.port, 8000);
  assert.equal(config.model.mode, "offline");
  assert.equal(config.storage.kind, "embedded");
});

Deno.test("loadConfig() selects OpenAI with its default models from OPENAI_API_KEY alone", () => {
  const config = loadConfig({ OPENAI_API_KEY: "sk-test" });
  assert.deepEqual(config.model, {
    mode: "openai",
    apiKey: "sk-test",
    baseURL: undefined,
    main: "gpt-4o-mini",
    fast: "gpt-4o-mini",
  });
  assert.equal(config.embedding.mode, "openai");
  assert.equal(config.embedding.dimensions, 1536);
});

Deno.test("loadConfig() points at Ollama with a base URL, a model and the local embedder", () => {
  const config = loadConfig({
    OPENAI_BASE_URL: "http://localhost:11434/v1",
    SIMULACRA_MODEL: "llama3.1:8b",
    SIMULACRA_FAST_MODEL: "llama3.2:3b",
  });
  assert.ok(config.model.mode === "openai");
  assert.equal(config.model.main, "llama3.1:8b");
  assert.equal(config.model.fast, "llama3.2:3b");
  assert.equal(config.model.apiKey, "not-needed");
  assert.deepEqual(config.embedding, { mode: "local", dimensions: 384 });
});

Deno.test("loadConfig() selects Upstash when all four variables are set", () => {
  const config = loadConfig(upstash);
  assert.deepEqual(config.storage, {
    kind: "upstash",
    redisUrl: upstash.UPSTASH_REDIS_REST_URL,
    redisToken: "rt",
    vectorUrl: upstash.UPSTASH_VECTOR_REST_URL,
    vectorToken: "vt",
  });
});

Deno.test("loadConfig() rejects a bad or half-given configuration naming each variable", async (t) => {
  await t.step("a non-numeric port", () => {
    assert.match(configErrorOf({ PORT: "eighty" }).message, /PORT must be a whole number/);
  });
  await t.step("a port out of range", () => {
    assert.match(configErrorOf({ PORT: "70000" }).message, /PORT must be at most 65535/);
  });
  await t.step("a base URL that is not a URL", () => {
    assert.match(configErrorOf({ OPENAI_BASE_URL: "localhost" }).message, /OPENAI_BASE_URL/);
  });
  await t.step("a short admin key", () => {
    assert.match(
      configErrorOf({ SIMULACRA_ADMIN_KEY: "abc" }).message,
      /SIMULACRA_ADMIN_KEY must be at least 16/,
    );
  });
  await t.step("a model without an endpoint", () => {
    const err = configErrorOf({ SIMULACRA_MODEL: "gpt-4o" });
    assert.match(
      err.message,
      /SIMULACRA_MODEL is set but no model endpoint is: set OPENAI_API_KEY/,
    );
  });
  await t.step("a base URL without a model", () => {
    assert.match(
      configErrorOf({ OPENAI_BASE_URL: "http://localhost:11434/v1" }).message,
      /SIMULACRA_MODEL is required with OPENAI_BASE_URL/,
    );
  });
  await t.step("an unknown embedding model without dimensions", () => {
    const err = configErrorOf({
      OPENAI_BASE_URL: "http://localhost:8001/v1",
      SIMULACRA_MODEL: "m",
      SIMULACRA_EMBEDDING_MODEL: "bge-small",
    });
    assert.match(
      err.message,
      /SIMULACRA_EMBEDDING_DIMENSIONS is required for embedding model "bge-small"/,
    );
  });
  await t.step("one Upstash pair only", () => {
    const err = configErrorOf({
      UPSTASH_REDIS_REST_URL: upstash.UPSTASH_REDIS_REST_URL,
      UPSTASH_REDIS_REST_TOKEN: "rt",
    });
    assert.match(err.message, /UPSTASH_VECTOR_REST_URL, UPSTASH_VECTOR_REST_TOKEN are not set/);
  });
  await t.step("several problems at once, all listed", () => {
    const err = configErrorOf({ PORT: "x", SIMULACRA_ADMIN_KEY: "short" });
    assert.match(err.message, /PORT/);
    assert.match(err.message, /SIMULACRA_ADMIN_KEY/);
  });
  await t.step("no Upstash on Workers", () => {
    assert.match(configErrorOf({}, "workers").message, /Cloudflare Workers have no local disk/);
  });
});

Deno.test("loadConfig() never repeats a secret in its message", () => {
  const err = configErrorOf({
    OPENAI_API_KEY: "sk-very-secret",
    UPSTASH_REDIS_REST_TOKEN: "tok-secret-1",
  });
  assert.doesNotMatch(err.message, /sk-very-secret|tok-secret-1/);
});

Deno.test("loadConfig() reads the default key rate limit and the audit retention", () => {
  const defaults = loadConfig({});
  assert.deepEqual(defaults.keyRateLimit, { requests: 120, perSeconds: 60 });
  assert.equal(defaults.auditRetentionDays, 30);
  const set = loadConfig({
    SIMULACRA_KEY_RATE_LIMIT: "10/1",
    SIMULACRA_AUDIT_RETENTION_DAYS: "90",
  });
  assert.deepEqual(set.keyRateLimit, { requests: 10, perSeconds: 1 });
  assert.equal(set.auditRetentionDays, 90);
  assert.equal(defaults.clientIpHeader, undefined);
  assert.equal(
    loadConfig({ SIMULACRA_CLIENT_IP_HEADER: "X-Forwarded-For" }).clientIpHeader,
    "x-forwarded-for",
  );
  const bad = configErrorOf({
    SIMULACRA_KEY_RATE_LIMIT: "lots",
    SIMULACRA_AUDIT_RETENTION_DAYS: "0",
  });
  assert.match(bad.message, /SIMULACRA_KEY_RATE_LIMIT must be "<requests>\/<seconds>"/);
  assert.match(bad.message, /SIMULACRA_AUDIT_RETENTION_DAYS must be at least 1/);
});

Deno.test("loadConfig() reads the request body timeout from SIMULACRA_BODY_TIMEOUT_MS", () => {
  assert.equal(loadConfig({}).bodyTimeoutMs, 10_000);
  assert.equal(loadConfig({ SIMULACRA_BODY_TIMEOUT_MS: "30000" }).bodyTimeoutMs, 30_000);
  for (const bad of ["ten", "1.5", "50"]) {
    assert.match(
      configErrorOf({ SIMULACRA_BODY_TIMEOUT_MS: bad }).message,
      /SIMULACRA_BODY_TIMEOUT_MS must be/,
    );
  }
});

Deno.test("loadConfig() reads SIMULACRA_CORS_ORIGINS as * or a list of exact origins", () => {
  assert.equal(loadConfig({}).corsOrigins, undefined);
  assert.equal(loadConfig({ SIMULACRA_CORS_ORIGINS: "*" }).corsOrigins, "*");
  assert.deepEqual(
    loadConfig({ SIMULACRA_CORS_ORIGINS: " http://localhost:5173, https://Game.Example.com " })
      .corsOrigins,
    ["http://localhost:5173", "https://game.example.com"],
  );
  for (
    const bad of [
      "https://game.example.com/",
      "game.example.com",
      "http://a.com/play",
      "*,http://a.com",
      " , ",
    ]
  ) {
    const err = configErrorOf({ SIMULACRA_CORS_ORIGINS: bad });
    assert.match(err.message, /SIMULACRA_CORS_ORIGINS/, bad);
  }
});
