/**
 * Malformed requests generated from the OpenAPI document, against every /v1 operation on both
 * backends: wrong types, missing and unknown fields, huge and control-character strings, bad
 * times, ids with `:/*?` and traversal, wrong content types, empty and oversized bodies,
 * malformed JSON, JSON nested 10,000 levels deep (in a card's `extensions` too). No answer may
 * be a 5xx, every error has the JSON error shape, and no body shows a stack trace or a path.
 * Over a real socket (what `fetch` will not send): bodies shorter than their Content-Length on
 * every write route, and malformed `Host` headers.
 */
import assert from "node:assert/strict";
import { sampleJsonSchema } from "../../lib/offline/json_schema_sample.ts";
import { silentLogger } from "../../lib/logger.ts";
import { createApp, v1Operations } from "../../routes/app.ts";
import { blankPng, writePngText } from "../../lib/png_text.ts";
import { startBackends } from "../_helpers/backends.ts";
import { sanitizersFor } from "../_helpers/backend_app.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import type { Deps } from "../../src/ports/deps.ts";
import { maraData } from "../src/domain/persona/_card_fixture.ts";
import { type RawAnswer, rawRequest, requestHead } from "../_helpers/raw_http.ts";

const { backends, close } = await startBackends();
const ADMIN = "admin-key-0123456789abcdef";

// deno-lint-ignore no-explicit-any
type Json = any;

/** One generated request. */
interface Probe {
  what: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer>;
}

const VALID: Record<string, string> = {
  world: "smallville",
  agent: "klaus",
  memory: "m_missing",
  id: "k_00000000000000000000",
};

const BAD_IDS = [
  ":",
  "a:b",
  "*",
  "a%3Fb",
  "..%2F..%2Fetc%2Fpasswd",
  "..",
  "%2e%2e%2f",
  "x".repeat(300),
  "%00",
  "%FF%FE",
  "%E2%80%AE",
  "%7B%7D",
];

const DEEP = "[".repeat(10_000) + "]".repeat(10_000);

function resolve(doc: Json, schema: Json): Json {
  let s = schema;
  for (let i = 0; i < 10 && s?.$ref; i++) {
    s = s.$ref.split("/").slice(1).reduce((o: Json, k: string) => o?.[k], doc);
  }
  return s ?? {};
}

function wrongTypeOf(value: unknown): unknown[] {
  if (typeof value === "string") return [12345, null, ["a"], { a: 1 }];
  if (typeof value === "number") return ["12", -1e308, 1.5e300, true];
  if (typeof value === "boolean") return ["true", 0];
  if (Array.isArray(value)) return ["not an array", { 0: "x" }, [null, 3, { deep: [[[]]] }]];
  return ["object expected", [], 7];
}

function pathFor(route: string, params: Record<string, string>): string {
  return route.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? VALID[name] ?? "x");
}

/** Every probe for one operation. */
function probesFor(doc: Json, method: string, route: string): Probe[] {
  const op = doc.paths[route][method.toLowerCase()];
  const json = { "content-type": "application/json" };
  const path = pathFor(route, {});
  const probes: Probe[] = [];
  const add = (what: string, p: Partial<Probe>) =>
    probes.push({ what, method, path, headers: {}, ...p });

  // Path parameters with odd characters and traversal.
  for (const name of route.match(/\{(\w+)\}/g)?.map((m) => m.slice(1, -1)) ?? []) {
    for (const bad of BAD_IDS) {
      add(`${name}=${bad}`, {
        path: pathFor(route, { [name]: bad }),
        headers: method === "GET" || method === "DELETE" ? {} : json,
        body: method === "GET" || method === "DELETE" ? undefined : "{}",
      });
    }
  }
  // Query strings of the wrong kind.
  for (
    const query of [
      "limit=-1&after=abc",
      "limit=1e999&cursor=%00",
      "after=9".repeat(1) + "9".repeat(40),
      "token=%FF&world=*&key=..",
    ]
  ) {
    add(`query ${query.slice(0, 30)}`, {
      path: `${path}?${query}`,
      headers: method === "GET" || method === "DELETE" ? {} : json,
      body: method === "GET" || method === "DELETE" ? undefined : "{}",
    });
  }
  if (method === "GET" || method === "DELETE") return probes;

  const content = op.requestBody?.content ?? {};
  const schema = content["application/json"]?.schema
    ? resolve(doc, content["application/json"].schema)
    : {};
  let sample: Json = {};
  try {
    sample = sampleJsonSchema({ ...schema, components: doc.components }) ?? {};
  } catch {
    sample = {};
  }
  if (typeof sample !== "object" || sample === null || Array.isArray(sample)) sample = {};

  // Bodies that are not what the schema wants.
  for (
    const body of ["", "{}", "[]", "null", "42", '"text"', '{"a":', "{'a': 1}", "\u0000", DEEP]
  ) {
    add(`body ${JSON.stringify(body.slice(0, 12))}`, { headers: json, body });
  }
  add("deep nested field", { headers: json, body: `{"name":${DEEP},"message":${DEEP}}` });
  add("unknown field", { headers: json, body: JSON.stringify({ ...sample, zzUnknown: 1 }) });
  add("oversized body", { headers: json, body: `{"pad":"${"x".repeat(5 * 1024 * 1024)}"}` });
  // Wrong content types.
  add("text/plain", { headers: { "content-type": "text/plain" }, body: JSON.stringify(sample) });
  add("xml", { headers: { "content-type": "application/xml" }, body: "<a>1</a>" });
  add("no content-type", { headers: {}, body: JSON.stringify(sample) });
  add("form", {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "a=1&b=2",
  });
  add("png garbage", { headers: { "content-type": "image/png" }, body: "\x89PNG garbage" });

  // Field by field: wrong types, missing, huge, control characters, bad times.
  const properties = Object.entries(schema.properties ?? {}) as [string, Json][];
  for (const [name, propSchema] of properties.slice(0, 8)) {
    const value = sample[name] ?? sampleJsonSchema({
      ...resolve(doc, propSchema),
      components: doc.components,
    });
    for (const wrong of wrongTypeOf(value)) {
      add(`${name} as ${JSON.stringify(wrong).slice(0, 20)}`, {
        headers: json,
        body: JSON.stringify({ ...sample, [name]: wrong }),
      });
    }
    const { [name]: _, ...missing } = sample;
    add(`without ${name}`, { headers: json, body: JSON.stringify(missing) });
    if (typeof value === "string") {
      add(`${name} huge`, {
        headers: json,
        body: JSON.stringify({ ...sample, [name]: "é".repeat(300_000) }),
      });
      add(`${name} control`, {
        headers: json,
        body: JSON.stringify({ ...sample, [name]: "bell\u0007 esc\u001b[2J nul\u0000" }),
      });
      add(`${name} lone surrogate`, {
        headers: json,
        body: JSON.stringify({ ...sample, [name]: "x" }).replace('"x"', '"\\ud800 lone"'),
      });
      add(`${name} bad time`, {
        headers: json,
        body: JSON.stringify({ ...sample, [name]: "2023-02-30T25:61:00" }),
      });
    }
  }
  for (const time of ["at", "startTime", "now", "time", "from", "to"]) {
    for (const bad of ["2023-02-30T25:61:00", "yesterday", "9999-99-99T99:99:99", "2023-02-13"]) {
      add(`${time}=${bad}`, { headers: json, body: JSON.stringify({ ...sample, [time]: bad }) });
    }
  }
  if (route.endsWith("/agents/import")) {
    const card = { spec: "chara_card_v2", spec_version: "2.0", data: maraData() };
    const text = JSON.stringify(card).replace(
      '"extensions":{"talkativeness":"0.5"}',
      `"extensions":{"deep":${DEEP}}`,
    );
    add("card with 10,000-deep extensions", { headers: json, body: text });
    const bytes = new TextEncoder().encode(text);
    add("PNG card with 10,000-deep extensions", {
      headers: { "content-type": "image/png" },
      body: writePngText(blankPng(), { chara: btoa(String.fromCharCode(...bytes)) }),
    });
    add("card extensions not an object", {
      headers: json,
      body: JSON.stringify({ ...card, data: { ...card.data, extensions: [1, 2] } }),
    });
    add("card with control characters", {
      headers: json,
      body: JSON.stringify({ ...card, data: { ...card.data, name: "Ma\u0000ra\u001b" } }),
    });
  }
  return probes;
}

/**
 * The app under fuzz: an admin key, no key rate limit to speak of, and the world and agent the
 * probes' paths name.
 */
async function fuzzedApp(deps: Deps): Promise<ReturnType<typeof createApp>> {
  const app = createApp(deps, {
    logger: silentLogger,
    adminKey: ADMIN,
    keyRateLimit: { requests: 1_000_000, perSeconds: 60 },
  });
  const setup = async (path: string, body: unknown) => {
    const res = await app.request(path, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.ok(res.status < 300, `${path}: ${await res.text()}`);
  };
  await setup("/v1/worlds", { id: "smallville", name: "S", startTime: "2023-02-13T07:00:00" });
  await setup("/v1/worlds/smallville/agents", {
    id: "klaus",
    name: "Klaus Mueller",
    description: "a researcher; he works at the library",
  });
  return app;
}

/** What a body must never show: stack frames, file paths, error class dumps. */
const LEAK =
  /file:\/\/|\/work\/|node_modules|\.ts:\d+|\bat [\w.<>]+ \(|\n\s+at |TypeError|RangeError|SyntaxError|ReferenceError/;

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] fuzz: malformed requests to every operation of the OpenAPI document never answer 5xx or leak internals`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const app = await fuzzedApp(deps);
      const auth = { authorization: `Bearer ${ADMIN}` };

      const doc = await (await app.request("/openapi.json")).json();
      const operations = v1Operations(app);
      const probes = operations.flatMap(({ method, route }) => probesFor(doc, method, route));
      assert.ok(probes.length >= 600, `${probes.length} probes`);
      const covered = new Set<string>();
      const failures: string[] = [];
      for (const probe of probes) {
        const res = await app.request(probe.path, {
          method: probe.method,
          headers: { ...auth, ...probe.headers },
          body: probe.body,
        });
        covered.add(`${probe.method} ${probe.path.split("?")[0]}`);
        const text = await res.text();
        const where = `${probe.method} ${probe.path.slice(0, 80)} (${probe.what}) → ${res.status}`;
        if (res.status >= 500) failures.push(`${where}: ${text.slice(0, 200)}`);
        if (LEAK.test(text)) failures.push(`${where} leaks: ${text.slice(0, 200)}`);
        if (res.status >= 400) {
          let body: Json;
          try {
            body = JSON.parse(text);
          } catch {
            failures.push(`${where}: not JSON: ${text.slice(0, 100)}`);
            continue;
          }
          if (
            typeof body?.error?.code !== "string" || typeof body.error.message !== "string" ||
            !/json/.test(res.headers.get("content-type") ?? "")
          ) failures.push(`${where}: not the error shape: ${text.slice(0, 200)}`);
        }
      }
      assert.deepEqual(failures, [], `${failures.length} of ${probes.length} probes failed`);
      assert.ok(operations.length >= 30);
    },
  });
}

/** Every write operation of the document that takes a body, with the media type it reads. */
function bodyOperations(doc: Json): { method: string; path: string; type: string }[] {
  return Object.entries(doc.paths as Record<string, Json>).flatMap(([route, item]) =>
    Object.entries(item as Record<string, Json>)
      .filter(([method, op]) =>
        ["post", "put", "patch", "delete"].includes(method) && op.requestBody
      )
      .map(([method, op]) => ({
        method: method.toUpperCase(),
        path: pathFor(route, {}),
        type: Object.keys(op.requestBody.content)[0],
      }))
  );
}

/** Malformed `Host` headers: more than one port, text after an IPv6 literal, a path, userinfo. */
const BAD_HOSTS = [
  "127.0.0.1:80:evil",
  "[::1].evil.com",
  "[::1]x",
  "[::1",
  "localhost/../admin",
  "evil.com@localhost",
  "exa mple.com",
  "localhost:99999",
  "127.0.0.1:8000?x",
];

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] fuzz over TCP: bodies cut short on every write route and malformed Host headers answer 400, never 5xx`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const app = await fuzzedApp(deps);
      await using server = Deno.serve(
        { port: 0, hostname: "127.0.0.1", onListen: () => {} },
        app.fetch,
      );
      const port = server.addr.port;
      const auth = { authorization: `Bearer ${ADMIN}` };
      const doc = await (await app.request("/openapi.json")).json();
      const writes = bodyOperations(doc);
      assert.ok(writes.length >= 20, `${writes.length} write routes`);
      const failures: string[] = [];
      const expect = (where: string, answer: RawAnswer) => {
        let code: string | undefined;
        try {
          code = JSON.parse(answer.body).error?.code;
        } catch {
          // reported below
        }
        if (answer.status !== 400 || code !== "invalid_request") {
          failures.push(`${where} → ${answer.status}: ${answer.body.slice(0, 160)}`);
        }
      };
      // The client sends part of a body, then closes its side.
      for (const { method, path, type } of writes) {
        const partial = type === "image/png" ? "\x89PNG\r\n" : '{"name": "Kla';
        const head = requestHead(method, path, {
          host: `127.0.0.1:${port}`,
          ...auth,
          "content-type": type,
          "content-length": "200",
        });
        expect(
          `${method} ${path} cut short`,
          await rawRequest(port, head + partial, { closeWrite: true }),
        );
      }
      // Hosts no URL can be built from, on /health and on /v1.
      for (const host of BAD_HOSTS) {
        for (const path of ["/health", "/v1/worlds"]) {
          const head = requestHead("GET", path, { host, ...auth, connection: "close" });
          expect(`GET ${path} Host: ${host}`, await rawRequest(port, head));
        }
      }
      assert.deepEqual(failures, [], `${failures.length} probes failed`);
    },
  });
}

Deno.test({
  name: "fuzz tests: stop the hosted backend",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
