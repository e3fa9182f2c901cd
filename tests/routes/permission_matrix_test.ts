/**
 * The permission matrix, generated from the OpenAPI document: for every /v1 operation and every
 * permission, a key without the operation's permission is refused and a key with only it gets
 * past authorisation. The rules are the ones the routes declare (`requires(…)` in
 * `createRoute`); a route added without one fails here, and is open to the admin key only.
 */
import assert from "node:assert/strict";
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { silentLogger } from "../../lib/logger.ts";
import { createApp, v1Operations } from "../../routes/app.ts";
import { declaredRules, requires } from "../../routes/permissions.ts";
import type { AppEnv } from "../../routes/app_env.ts";
import { PERMISSIONS } from "../../src/domain/access/api_key.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const ADMIN = "admin-key-0123456789abcdef";

const PARAMS: Record<string, string> = {
  world: "smallville",
  agent: "klaus",
  memory: "m_none",
  conversation: "c_none",
  tickId: "t_none",
  id: "k_00000000000000000000",
  other: "Mara",
  goal: "g_none",
};

function pathOf(route: string): string {
  return route.replace(/\{(\w+)\}/g, (_, name: string) => {
    assert.ok(PARAMS[name], `the matrix has a value for {${name}}`);
    return PARAMS[name];
  });
}

Deno.test("every /v1 operation of the OpenAPI document has an access rule, and every rule an operation", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger, adminKey: ADMIN });
  const documented = v1Operations(app).map((o) => `${o.method} ${o.route}`).sort();
  assert.ok(documented.length >= 30, `${documented.length} operations`);
  assert.deepEqual([...declaredRules(app.routes).keys()].sort(), documented);
  // The document is the one the server serves.
  const served = await (await app.request("/openapi.json")).json();
  for (const op of documented) {
    const [method, route] = op.split(" ");
    assert.ok(served.paths[route]?.[method.toLowerCase()], `${op} is served`);
  }
});

Deno.test("permission matrix: without the operation's permission a key is refused, with only it a key passes", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, {
    logger: silentLogger,
    adminKey: ADMIN,
    keyRateLimit: { requests: 100_000, perSeconds: 60 },
  });
  const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
  const created = await app.request("/v1/worlds", {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ id: "smallville", name: "S", startTime: "2023-02-13T07:00:00" }),
  });
  assert.equal(created.status, 201);
  await app.request("/v1/worlds/smallville/agents", {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ id: "klaus", name: "Klaus Mueller", description: "a researcher" }),
  });

  const secrets = new Map<string, string>();
  async function keyWith(permissions: readonly string[]): Promise<string> {
    const id = permissions.join(",");
    if (!secrets.has(id)) {
      const res = await app.request("/v1/keys", {
        method: "POST",
        headers: admin,
        body: JSON.stringify({ name: id, scope: { worlds: ["*"] }, permissions }),
      });
      assert.equal(res.status, 201);
      secrets.set(id, (await res.json()).secret);
    }
    return secrets.get(id)!;
  }
  async function call(secret: string, method: string, route: string) {
    const write = method !== "GET" && method !== "DELETE";
    const res = await app.request(pathOf(route), {
      method,
      headers: {
        authorization: `Bearer ${secret}`,
        ...(write ? { "content-type": "application/json" } : {}),
      },
      body: write ? "{}" : undefined,
    });
    const text = await res.text();
    // A world export answers NDJSON; every other answer (errors included) is one JSON value.
    const json = /^application\/json\b/.test(res.headers.get("content-type") ?? "");
    return { status: res.status, body: text && json ? JSON.parse(text) : text };
  }

  const rules = declaredRules(app.routes);
  let checked = 0;
  for (const { method, route } of v1Operations(app)) {
    const op = `${method} ${route}`;
    const rule = rules.get(op);
    assert.ok(rule, `${op} has an access rule`);
    if (rule.need === "admin") {
      const res = await call(await keyWith(PERMISSIONS), method, route);
      assert.equal(res.status, 403, `${op}: a key with every permission is refused`);
      assert.match(res.body.error.message, /only the admin key/);
      const asAdmin = await call(ADMIN, method, route);
      assert.notEqual(asAdmin.status, 403, `${op}: the admin passes`);
      assert.notEqual(asAdmin.status, 401, `${op}: the admin passes`);
      checked += 2;
      continue;
    }
    for (const permission of PERMISSIONS) {
      if (permission === rule.need) {
        const res = await call(await keyWith([permission]), method, route);
        assert.ok(
          res.status !== 401 && res.status !== 403,
          `${op}: a key with only "${permission}" passes authorisation (got ${res.status} ${
            JSON.stringify(res.body)
          })`,
        );
      } else {
        // Every other permission, but not the one needed.
        const others = PERMISSIONS.filter((p) => p !== rule.need);
        const res = await call(await keyWith(others), method, route);
        assert.equal(res.status, 403, `${op}: a key without "${rule.need}" is refused`);
        assert.equal(res.body.error.code, "forbidden");
        assert.equal(res.body.error.details.missing, rule.need);
        // A key holding only this other permission is refused too.
        const single = await call(await keyWith([permission]), method, route);
        assert.equal(single.status, 403, `${op}: a key with only "${permission}" is refused`);
      }
      checked++;
    }
  }
  assert.ok(checked >= 30 * PERMISSIONS.length - 40, `${checked} cells checked`);
});

Deno.test("a /v1 route that declares no rule is open to the admin key only", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger, adminKey: ADMIN });
  app.openapi(
    createRoute({ method: "get", path: "/v1/undeclared", responses: { 200: { description: "" } } }),
    (c) => c.json({ served: true }, 200),
  );
  const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
  const created = await app.request("/v1/keys", {
    method: "POST",
    headers: admin,
    body: JSON.stringify({ name: "all", scope: { worlds: ["*"] }, permissions: PERMISSIONS }),
  });
  const { secret } = await created.json();
  const asKey = await app.request("/v1/undeclared", {
    headers: { authorization: `Bearer ${secret}` },
  });
  assert.equal(asKey.status, 403);
  assert.equal(
    (await asKey.json()).error.message,
    "Cannot call GET /v1/undeclared with an API key: only the admin key may",
  );
  const asAdmin = await app.request("/v1/undeclared", { headers: admin });
  assert.deepEqual(await asAdmin.json(), { served: true });
});

Deno.test("a declared route mounted without access control refuses to serve", async () => {
  const bare = new OpenAPIHono<AppEnv>();
  bare.openapi(
    createRoute({
      method: "get",
      path: "/v1/worlds",
      middleware: requires("read"),
      responses: { 200: { description: "" } },
    }),
    (c) => c.json({ served: true }, 200),
  );
  bare.onError((err, c) => c.json({ message: err.message }, 500));
  const res = await bare.request("/v1/worlds");
  assert.equal(res.status, 500);
  assert.match((await res.json()).message, /access control did not check it/);
});
