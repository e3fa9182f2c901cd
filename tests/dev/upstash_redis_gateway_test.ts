/** @module Tests the Upstash Redis REST gateway's wire protocol with fetch and through @upstash/redis. */
import assert from "node:assert/strict";
import { Redis } from "@upstash/redis";
import { type RedisServer, startRedisServer } from "../../dev/redis_server.ts";
import {
  startUpstashRedisGateway,
  type UpstashRedisGateway,
} from "../../dev/upstash_redis_gateway.ts";

const TOKEN = "gateway-test-token";

const redis = await tryStartRedis();

/** Runs `fn` against a fresh gateway and closes it, so each test opens and closes its own. */
function gatewayTest(
  name: string,
  fn: (gateway: UpstashRedisGateway) => Promise<void>,
  options: { keepUpstashFlags?: boolean } = {},
): void {
  if (!redis) {
    Deno.test({ name: `${name} (needs redis-server, not installed)`, ignore: true, fn() {} });
    return;
  }
  const server = redis;
  Deno.test(name, async () => {
    const gateway = await startUpstashRedisGateway({
      redisUrl: server.url,
      token: TOKEN,
      ...options,
    });
    try {
      await fn(gateway);
    } finally {
      await gateway.close();
    }
  });
}

async function tryStartRedis(): Promise<RedisServer | undefined> {
  try {
    const server = await startRedisServer();
    // close() kills synchronously before it awaits, so it works from the synchronous listener.
    globalThis.addEventListener("unload", () => void server.close());
    return server;
  } catch (error) {
    // deno-lint-ignore no-console
    console.log(`Skipping the gateway tests: ${(error as Error).message}`);
    return undefined;
  }
}

interface Call {
  status: number;
  body: unknown;
}

async function post(
  gateway: UpstashRedisGateway,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Call> {
  const response = await fetch(`${gateway.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

function b64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

function key(name: string): string {
  return `${name}-${crypto.randomUUID()}`;
}

gatewayTest(
  "startUpstashRedisGateway() answers 401 with a JSON error without the token",
  async (g) => {
    const attempts: Record<string, string>[] = [{}, { authorization: "Bearer wrong" }, {
      authorization: TOKEN,
    }];
    for (const headers of attempts) {
      const response = await fetch(g.url, {
        method: "POST",
        headers,
        body: JSON.stringify(["PING"]),
      });
      assert.equal(response.status, 401);
      const body = await response.json();
      assert.equal(typeof body.error, "string");
      assert.ok(!JSON.stringify(body).includes(TOKEN), "The error never repeats the token");
    }
    const viaQuery = await fetch(`${g.url}/ping?_token=${TOKEN}`);
    assert.deepEqual(await viaQuery.json(), { result: "PONG" });
  },
);

gatewayTest("startUpstashRedisGateway() runs one command from POST / as {result}", async (g) => {
  const k = key("one");
  assert.deepEqual(await post(g, "/", ["SET", k, "héllo ☕"]), {
    status: 200,
    body: { result: "OK" },
  });
  assert.deepEqual(await post(g, "/", ["GET", k]), { status: 200, body: { result: "héllo ☕" } });
  assert.deepEqual(await post(g, "/", ["INCRBY", key("n"), 41]), {
    status: 200,
    body: { result: 41 },
  });
  assert.deepEqual(await post(g, "/", ["GET", key("missing")]), {
    status: 200,
    body: { result: null },
  });
  assert.deepEqual(await post(g, "/", ["SET", k, true]), { status: 200, body: { result: "OK" } });
  assert.deepEqual(await post(g, "/", ["GET", k]), { status: 200, body: { result: "true" } });
});

gatewayTest("startUpstashRedisGateway() answers a Redis error with 400 {error}", async (g) => {
  const k = key("err");
  await post(g, "/", ["SET", k, "not a number"]);
  const incr = await post(g, "/", ["INCR", k]);
  assert.equal(incr.status, 400);
  assert.match((incr.body as { error: string }).error, /not an integer/);
  const unknown = await post(g, "/", ["NO-SUCH-COMMAND"]);
  assert.equal(unknown.status, 400);
  assert.match((unknown.body as { error: string }).error, /unknown command/i);
  const malformed = await post(g, "/", "{not json");
  assert.equal(malformed.status, 400);
  assert.equal(typeof (malformed.body as { error: string }).error, "string");
  const nested = await post(g, "/", ["SET", k, { an: "object" }]);
  assert.equal(nested.status, 400);
});

gatewayTest("startUpstashRedisGateway() flattens HGETALL to a flat array", async (g) => {
  const k = key("hash");
  await post(g, "/", ["HSET", k, "a", "1", "b", "two"]);
  const { body } = await post(g, "/", ["HGETALL", k]);
  const flat = (body as { result: string[] }).result;
  assert.equal(flat.length, 4);
  const asMap = Object.fromEntries([[flat[0], flat[1]], [flat[2], flat[3]]]);
  assert.deepEqual(asMap, { a: "1", b: "two" });
});

gatewayTest("startUpstashRedisGateway() returns one entry per pipelined command", async (g) => {
  const k = key("pipe");
  const { status, body } = await post(g, "/pipeline", [
    ["SET", k, "x"],
    ["INCR", k],
    ["GET", k],
    ["ZADD", key("z"), 1, "one", 2, "two"],
  ]);
  assert.equal(status, 200);
  const entries = body as { result?: unknown; error?: string }[];
  assert.deepEqual(entries[0], { result: "OK" });
  assert.match(entries[1].error ?? "", /not an integer/);
  assert.deepEqual(entries[2], { result: "x" });
  assert.deepEqual(entries[3], { result: 2 });
  assert.equal((await post(g, "/pipeline", [])).status, 400);
  assert.equal((await post(g, "/pipeline", [["GET"], "not a command"])).status, 400);
});

gatewayTest("startUpstashRedisGateway() runs /multi-exec as one atomic transaction", async (g) => {
  const counter = key("tx");
  // Each transaction takes two consecutive numbers even when 20 run at once.
  const results = await Promise.all(
    Array.from(
      { length: 20 },
      () => post(g, "/multi-exec", [["INCR", counter], ["INCR", counter]]),
    ),
  );
  const pairs = results.map((r) => (r.body as { result: number }[]).map((e) => e.result));
  for (const [first, second] of pairs) assert.equal(second, first + 1);
  assert.deepEqual(pairs.flat().sort((a, b) => a - b), Array.from({ length: 40 }, (_, i) => i + 1));

  // A runtime error stays in its entry; the other commands still apply.
  const k = key("tx-runtime");
  const runtime = await post(g, "/multi-exec", [["SET", k, "v"], ["INCR", k], ["GET", k]]);
  assert.equal(runtime.status, 200);
  const entries = runtime.body as { result?: unknown; error?: string }[];
  assert.deepEqual(entries[0], { result: "OK" });
  assert.match(entries[1].error ?? "", /not an integer/);
  assert.deepEqual(entries[2], { result: "v" });

  // A command Redis refuses to queue aborts the whole transaction: nothing is written.
  const aborted = key("tx-aborted");
  const refused = await post(g, "/multi-exec", [["SET", aborted, "1"], ["NO-SUCH-COMMAND"]]);
  assert.equal(refused.status, 400);
  assert.match((refused.body as { error: string }).error, /EXECABORT/);
  assert.deepEqual((await post(g, "/", ["EXISTS", aborted])).body, { result: 0 });
});

gatewayTest(
  "startUpstashRedisGateway() base64-encodes every string, nested ones too, except OK",
  async (g) => {
    const headers = { "Upstash-Encoding": "base64" };
    const k = key("b64");
    assert.deepEqual((await post(g, "/", ["SET", k, "héllo"], headers)).body, { result: "OK" });
    assert.deepEqual((await post(g, "/", ["GET", k], headers)).body, { result: b64("héllo") });
    assert.deepEqual((await post(g, "/", ["PING"], headers)).body, { result: b64("PONG") });
    assert.deepEqual((await post(g, "/", ["STRLEN", k], headers)).body, { result: 6 });
    const script = "return {1, 'a', {2, 'b', {'c'}}, redis.call('GET', KEYS[1])}";
    assert.deepEqual((await post(g, "/", ["EVAL", script, 1, k], headers)).body, {
      result: [1, b64("a"), [2, b64("b"), [b64("c")]], b64("héllo")],
    });
    const h = key("b64-hash");
    await post(g, "/", ["HSET", h, "f", "v"]);
    assert.deepEqual((await post(g, "/", ["HGETALL", h], headers)).body, {
      result: [b64("f"), b64("v")],
    });
    const pipeline = await post(
      g,
      "/pipeline",
      [["GET", k], ["SET", k, "x"], ["INCR", k]],
      headers,
    );
    assert.deepEqual(pipeline.body, [
      { result: b64("héllo") },
      { result: "OK" },
      { error: "ERR value is not an integer or out of range" },
    ]);
  },
);

gatewayTest("startUpstashRedisGateway() accepts the path form of commands", async (g) => {
  const k = key("path");
  const auth = { authorization: `Bearer ${TOKEN}` };
  const set = await fetch(`${g.url}/set/${k}/bar`, { headers: auth });
  assert.deepEqual(await set.json(), { result: "OK" });
  const get = await fetch(`${g.url}/get/${k}`, { headers: auth });
  assert.deepEqual(await get.json(), { result: "bar" });
  // A POST body is the last argument; query parameters follow it.
  const v = key("path-body");
  const posted = await fetch(`${g.url}/set/${v}?EX=100`, {
    method: "POST",
    headers: auth,
    body: "a value / with spaces",
  });
  assert.deepEqual(await posted.json(), { result: "OK" });
  assert.deepEqual((await post(g, "/", ["GET", v])).body, { result: "a value / with spaces" });
  const ttl = (await post(g, "/", ["TTL", v])).body as { result: number };
  assert.ok(ttl.result > 0 && ttl.result <= 100);
  const encoded = await fetch(`${g.url}/set/${encodeURIComponent("a/b c")}/x`, { headers: auth });
  assert.deepEqual(await encoded.json(), { result: "OK" });
  assert.deepEqual((await post(g, "/", ["GET", "a/b c"])).body, { result: "x" });
});

gatewayTest(
  "startUpstashRedisGateway() passes EVAL, EVALSHA and SCRIPT LOAD through",
  async (g) => {
    const script = "return ARGV[1] .. '!'";
    const sha = (await post(g, "/", ["SCRIPT", "LOAD", script])).body as { result: string };
    assert.match(sha.result, /^[0-9a-f]{40}$/);
    assert.deepEqual((await post(g, "/", ["EVALSHA", sha.result, 0, "hi"])).body, {
      result: "hi!",
    });
    assert.deepEqual((await post(g, "/", ["EVAL", script, 0, "yo"])).body, { result: "yo!" });
    const missing = await post(g, "/", ["EVALSHA", "0".repeat(40), 0]);
    assert.equal(missing.status, 400);
    assert.match((missing.body as { error: string }).error, /NOSCRIPT/);
  },
);

gatewayTest(
  "startUpstashRedisGateway() drops Upstash's allow-key-locking shebang flag, which redis-server refuses",
  async (g) => {
    const flagged = "#!lua flags=allow-key-locking\nreturn ARGV[1] .. '?'";
    assert.deepEqual((await post(g, "/", ["EVAL", flagged, 0, "ok"])).body, { result: "ok?" });
    const loaded = await post(g, "/", ["SCRIPT", "LOAD", flagged]);
    assert.match((loaded.body as { result: string }).result, /^[0-9a-f]{40}$/);
    const both = "#!lua flags=no-writes,allow-key-locking\nreturn 7";
    assert.deepEqual((await post(g, "/", ["EVAL", both, 0])).body, { result: 7 });
  },
);

gatewayTest(
  "startUpstashRedisGateway({ keepUpstashFlags }) passes the flag on, and redis-server refuses it",
  async (g) => {
    const flagged = "#!lua flags=allow-key-locking\nreturn 1";
    const refused = await post(g, "/", ["EVAL", flagged, 0]);
    assert.equal(refused.status, 400);
    assert.match((refused.body as { error: string }).error, /allow-key-locking/);
    assert.deepEqual((await post(g, "/", ["EVAL", "return 1", 0])).body, { result: 1 });
  },
  { keepUpstashFlags: true },
);

gatewayTest(
  "startUpstashRedisGateway() refuses methods and commands it cannot serve",
  async (g) => {
    const del = await fetch(g.url, {
      method: "DELETE",
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(del.status, 405);
    await del.body?.cancel();
    const subscribe = await post(g, "/", ["SUBSCRIBE", "channel"]);
    assert.equal(subscribe.status, 400);
    assert.match((subscribe.body as { error: string }).error, /SUBSCRIBE/);
  },
);

gatewayTest("startUpstashRedisGateway() serves the official @upstash/redis client", async (g) => {
  const client = new Redis({ url: g.url, token: TOKEN, enableTelemetry: false });
  const k = key("client");
  await client.set(k, { name: "Klaus", tags: ["a", "b"] });
  assert.deepEqual(await client.get(k), { name: "Klaus", tags: ["a", "b"] });
  const h = key("client-hash");
  await client.hset(h, { a: 1, b: "two" });
  assert.deepEqual(await client.hgetall(h), { a: 1, b: "two" });
  const z = key("client-z");
  await client.zadd(z, { score: 2, member: "two" }, { score: 1, member: "one" });
  assert.deepEqual(await client.zrange(z, 0, -1), ["one", "two"]);
  assert.deepEqual(await client.zrange(z, 0, -1, { rev: true, withScores: true }), [
    "two",
    2,
    "one",
    1,
  ]);
  // Scripts: EVALSHA first, EVAL after NOSCRIPT, EVALSHA again once cached.
  const script = client.createScript<string>(`return KEYS[1] .. ':' .. ARGV[1]`);
  assert.equal(await script.exec(["k"], ["1"]), "k:1");
  assert.equal(await script.exec(["k"], ["2"]), "k:2");
  const tx = await client.multi().set(k, 1).incr(k).get(k).exec();
  assert.deepEqual(tx, ["OK", 2, 2]);
  const p = await client.pipeline().incr(k).incr(k).exec();
  assert.deepEqual(p, [3, 4]);
  // Auto-pipelining batches these into one /pipeline request.
  const many = await Promise.all(Array.from({ length: 10 }, (_, i) => client.set(`${k}:${i}`, i)));
  assert.deepEqual(many, Array(10).fill("OK"));
  await assert.rejects(client.incr(h), /WRONGTYPE/);
  const raw = new Redis({
    url: g.url,
    token: TOKEN,
    enableTelemetry: false,
    responseEncoding: false,
  });
  assert.equal(await raw.get(`${k}:3`), 3);
});

if (redis) {
  const server = redis;
  Deno.test("startUpstashRedisGateway() rejects a redis-server it cannot reach", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await assert.rejects(
      startUpstashRedisGateway({ redisUrl: `redis://:secret@127.0.0.1:${port}`, token: TOKEN }),
      (error: Error) => {
        assert.match(error.message, /Cannot reach redis-server/);
        assert.ok(!error.message.includes("secret"), "The password is redacted");
        return true;
      },
    );
    await assert.rejects(startUpstashRedisGateway({ redisUrl: server.url, token: "" }), TypeError);
  });
}
