/**
 * @module Runs the storage contract on the hosted backend, against a local redis-server behind
 * the dev REST gateway and the dev vector server (8 dimensions).
 *
 * redis-server is started here; the gateway and the vector server run in a child process,
 * `dev/upstash_local.ts --redis-url …`. Why: the contract's cases keep Deno's default
 * sanitizers, and servers in this process would open and close Redis connections and HTTP ops
 * inside whichever case happens to be running, which `--sanitize-ops --sanitize-resources`
 * reports as leaks. From here the cases only `fetch`. Both children start before any case runs
 * and are stopped by the `unload` listener after the last one; Deno also kills its direct
 * children when it exits, so neither outlives the test run (which is why redis-server is not
 * left to the CLI: a killed CLI could not stop its own child).
 */
import assert from "node:assert/strict";
import { SimulacraError } from "../../src/domain/errors.ts";
import { Redis } from "@upstash/redis";
import { Index } from "@upstash/vector";
import { startRedisServer } from "../../dev/redis_server.ts";
import { openUpstashStorage, UpstashStorage } from "../../lib/upstash/upstash_storage.ts";
import { newScope, suffix } from "../contracts/_contract_support.ts";
import { storageContract } from "../contracts/storage_contract.ts";
import { rejectionOf } from "../_helpers/rejection.ts";

const TOKEN = `test-${suffix()}`;

if (!(await hasRedisServer())) {
  const reason = "redis-server is not installed (apt-get install -y redis-server)";
  // deno-lint-ignore no-console
  console.log(`Skipping the Upstash storage contract: ${reason}`);
  Deno.test({
    name: `openUpstashStorage() passes the storage contract (${reason})`,
    ignore: true,
    fn() {},
  });
} else {
  const env = await startLocalUpstash();
  const open = (keyPrefix = `t${suffix()}`) =>
    openUpstashStorage({
      redisUrl: env.UPSTASH_REDIS_REST_URL,
      redisToken: env.UPSTASH_REDIS_REST_TOKEN,
      vectorUrl: env.UPSTASH_VECTOR_REST_URL,
      vectorToken: env.UPSTASH_VECTOR_REST_TOKEN,
      keyPrefix,
    });

  storageContract("upstash", () => open());

  Deno.test("openUpstashStorage() reads the dimension from the vector index", async () => {
    const storage = await open();
    try {
      assert.equal(storage.kind, "upstash");
      assert.equal(storage.vectors.dimensions, 8);
    } finally {
      await storage.close();
    }
  });

  Deno.test("openUpstashStorage() keeps key prefixes apart", async () => {
    const a = await open();
    const b = await open();
    try {
      const scope = newScope();
      await a.documents.create({ collection: "worlds", scope: "", id: scope.worldId }, { n: 1 });
      await a.vectors.upsert(scope, [{ id: "v" as never, vector: new Float32Array(8).fill(1) }]);
      assert.equal(
        await b.documents.get({ collection: "worlds", scope: "", id: scope.worldId }),
        null,
      );
      assert.deepEqual(await b.vectors.fetch(scope, ["v" as never]), []);
      assert.equal((await a.vectors.fetch(scope, ["v" as never])).length, 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  Deno.test("UpstashStorage forgets an idempotency value after its time to live", async () => {
    // Redis expires a key at its time (Deno KV only within about a minute: not asserted there).
    const storage = await open();
    try {
      const scope = `w-${suffix()}`;
      const ttl = { ttlMs: 300 };
      await storage.idempotency.claim(scope, "claimed", { value: 1, ...ttl });
      await storage.idempotency.put(scope, "put", { value: 2, ...ttl });
      await storage.units.commit({
        documents: [],
        fences: [],
        release: [],
        claim: { scope, key: "committed", value: 3, counter: "count", ...ttl },
      });
      await storage.idempotency.claim(scope, "kept", { value: 4 });
      assert.equal(await storage.idempotency.get(scope, "committed"), 3);
      assert.equal(await storage.idempotency.get(scope, "count"), 1);
      // Real time: the keys' TTLs expire in a real Redis.
      await new Promise((resolve) => setTimeout(resolve, 600));
      for (const key of ["claimed", "put", "committed", "count"]) {
        assert.equal(await storage.idempotency.get(scope, key), null, key);
      }
      assert.equal(await storage.idempotency.get(scope, "kept"), 4, "no time to live: kept");
      assert.deepEqual(await storage.idempotency.claim(scope, "claimed", { value: 5 }), {
        created: true,
        value: 5,
      });
    } finally {
      await storage.close();
    }
  });

  Deno.test("openUpstashStorage() throws config_error on a key prefix with a space", async () => {
    const error = await rejectionOf(open("bad prefix"), SimulacraError);
    assert.equal(error.code, "config_error");
  });

  Deno.test(
    "openUpstashStorage() throws store_unavailable naming Upstash Redis when the token is wrong",
    async () => {
      const error = await rejectionOf(
        openUpstashStorage({
          redisUrl: env.UPSTASH_REDIS_REST_URL,
          redisToken: "wrong-secret-token",
          vectorUrl: env.UPSTASH_VECTOR_REST_URL,
          vectorToken: env.UPSTASH_VECTOR_REST_TOKEN,
        }),
        SimulacraError,
      );
      assert.equal(error.code, "store_unavailable");
      assert.match(error.message, /Upstash Redis/);
      assert.doesNotMatch(error.message, /wrong-secret-token/);
    },
  );

  Deno.test(
    "openUpstashStorage() throws store_unavailable naming Upstash Vector when it does not answer",
    async () => {
      const error = await rejectionOf(
        openUpstashStorage({
          redisUrl: env.UPSTASH_REDIS_REST_URL,
          redisToken: env.UPSTASH_REDIS_REST_TOKEN,
          vectorUrl: `http://127.0.0.1:${closedPort()}`,
          vectorToken: env.UPSTASH_VECTOR_REST_TOKEN,
        }),
        SimulacraError,
      );
      assert.equal(error.code, "store_unavailable");
      assert.match(error.message, /Upstash Vector/);
      assert.doesNotMatch(error.message, new RegExp(env.UPSTASH_VECTOR_REST_TOKEN));
    },
  );

  Deno.test("UpstashStorage.ping() throws store_unavailable when Redis stops answering", async () => {
    const vector = new Index({
      url: env.UPSTASH_VECTOR_REST_URL,
      token: env.UPSTASH_VECTOR_REST_TOKEN,
      enableTelemetry: false,
    });
    const settings = { keyPrefix: "t", dimensions: 8, similarity: "COSINE" } as const;
    const working = new UpstashStorage(
      new Redis({ url: env.UPSTASH_REDIS_REST_URL, token: TOKEN, enableTelemetry: false }),
      vector,
      settings,
    );
    await working.ping();
    const gone = new UpstashStorage(
      new Redis({
        url: `http://127.0.0.1:${closedPort()}`,
        token: TOKEN,
        enableTelemetry: false,
        retry: { retries: 0 },
      }),
      vector,
      settings,
    );
    const error = await rejectionOf(gone.ping(), SimulacraError);
    assert.equal(error.code, "store_unavailable");
    assert.match(error.message, /Upstash Redis/);
    assert.doesNotMatch(error.message, new RegExp(TOKEN));
  });
}

async function hasRedisServer(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("redis-server", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

/** Starts redis-server and `upstash_local.ts`; returns the four UPSTASH_* variables it prints. */
async function startLocalUpstash(): Promise<Record<string, string>> {
  const redis = await startRedisServer();
  // close() kills synchronously before it awaits, so it works from the synchronous listener.
  globalThis.addEventListener("unload", () => void redis.close());
  const cli = new URL("../../dev/upstash_local.ts", import.meta.url);
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      cli.pathname,
      "--redis-url",
      redis.url,
      "--dimensions",
      "8",
      "--token",
      TOKEN,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  // Runs when the test process exits: kill() is synchronous, the child then stops its servers.
  globalThis.addEventListener("unload", () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // Already exited.
    }
  });
  const env: Record<string, string> = {};
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (Object.keys(env).length < 4) {
    const { value, done } = await reader.read();
    if (done) throw new Error("upstash_local.ts exited before printing its environment");
    text += value;
    for (const match of text.matchAll(/^export (UPSTASH_[A-Z_]+)=(\S+)$/gm)) {
      env[match[1]] = match[2];
    }
  }
  // Nothing more is printed; closing our end now keeps no read pending during the cases.
  await reader.cancel();
  return env;
}

/** A port nothing listens on. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}
