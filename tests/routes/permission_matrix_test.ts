/**
 * The permission matrix, generated from the OpenAPI document: for every /v1 operation and every
 * permission, a key without the operation's permission is refused and a key with only it gets
 * past authorisation. A route added without an access rule fails here.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp, v1Operations } from "../../routes/app.ts";
import { OPERATION_RULES } from "../../routes/permissions.ts";
import { PERMISSIONS } from "../../src/access/api_key.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const ADMIN = "admin-key-0123456789abcdef";

const PARAMS: Record<string, string> = {
  world: "smallville",
  agent: "klaus",
  memory: "m_none",
  conversation: "c_none",
  tickId: "t_none",
  id: "k_00000000000000000000",
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
  assert.deepEqual(Object.keys(OPERATION_RULES).sort(), documented);
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

  let checked = 0;
  for (const { method, route } of v1Operations(app)) {
    const op = `${method} ${route}`;
    const rule = OPERATION_RULES[op];
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
