/**
 * Keys on a server without an admin key: every loopback request is already the admin's, so the
 * key routes refuse with `409 keys_disabled` (saying how to set one) instead of minting secrets
 * that grant nothing, and store nothing; with an admin key they work. On both storage backends,
 * and the OpenAPI document lists the answer.
 */
import assert from "node:assert/strict";
import { startBackends } from "../_helpers/backends.ts";
import { sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { listKeys } from "../../lib/access/api_keys.ts";

const { backends, close } = await startBackends();
const KEY = { name: "tavern client", scope: { worlds: ["smallville"] }, permissions: ["read"] };

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] without SIMULACRA_ADMIN_KEY every key route is a 409 keys_disabled saying how to set one`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app, deps) => {
        const calls: [string, string, unknown?][] = [
          ["POST", "/v1/keys", KEY],
          ["POST", "/v1/keys", { permissions: ["root"] }], // refused before body checks
          ["GET", "/v1/keys"],
          ["DELETE", "/v1/keys/k_0123456789abcdef0123"],
        ];
        for (const [method, path, body] of calls) {
          const res = await app.request(path, {
            method,
            headers: body === undefined ? {} : { "content-type": "application/json" },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const answer = await res.json();
          assert.equal(res.status, 409, `${method} ${path}: ${JSON.stringify(answer)}`);
          assert.equal(answer.error.code, "keys_disabled");
          assert.match(answer.error.message, /no admin key/);
          assert.match(answer.error.message, /SIMULACRA_ADMIN_KEY=/, "says how to set one");
        }
        assert.deepEqual(await listKeys(deps.storage.documents), [], "no key was stored");
        // Everything else is still open to loopback callers.
        assert.equal((await app.request("/v1/worlds")).status, 200);
      }),
  });

  Deno.test({
    name: `[${backend.name}] with an admin key the key routes mint, list and revoke`,
    ...sanitizersFor(backend),
    fn: async () => {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const admin = "admin-key-0123456789abcdef";
      const app = createApp(deps, { logger: silentLogger, adminKey: admin });
      const headers = { authorization: `Bearer ${admin}`, "content-type": "application/json" };
      const made = await app.request("/v1/keys", {
        method: "POST",
        headers,
        body: JSON.stringify(KEY),
      });
      assert.equal(made.status, 201);
      const { id } = await made.json();
      const listed = await (await app.request("/v1/keys", { headers })).json();
      assert.deepEqual(listed.keys.map((k: { id: string }) => k.id), [id]);
      assert.equal(
        (await app.request(`/v1/keys/${id}`, { method: "DELETE", headers })).status,
        204,
      );
    },
  });
}

Deno.test("the OpenAPI document lists 409 keys_disabled on every key operation", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const document = await (await app.request("/openapi.json")).json();
  const operations = [
    document.paths["/v1/keys"].post,
    document.paths["/v1/keys"].get,
    document.paths["/v1/keys/{id}"].delete,
  ];
  for (const operation of operations) {
    assert.match(operation.responses["409"].description, /keys_disabled/, operation.operationId);
    assert.equal(
      operation.responses["409"].content["application/json"].schema.$ref,
      "#/components/schemas/Error",
    );
  }
});

Deno.test({
  name: "keys_disabled tests: stop the hosted backend",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
