import assert from "node:assert/strict";
import { HTTPException } from "hono/http-exception";
import { jsonLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { sanitizersFor } from "../_helpers/backend_app.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();
const WORLD = JSON.stringify({ id: "town", name: "Town", startTime: "2023-02-13T07:00:00" });

for (const backend of backends) {
  Deno.test({
    name: `[${backend.name}] framework errors keep their status; 5xx are logged as errors`,
    ...sanitizersFor(backend),
    async fn(t) {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const lines: Record<string, unknown>[] = [];
      const logger = jsonLogger({ write: (line) => lines.push(JSON.parse(line)) });
      const app = createApp(deps, { logger, requestId: () => "req-42" });
      app.get("/v1/teapot/:status", (c) => {
        throw new HTTPException(Number(c.req.param("status")) as 429, { message: "Slow down" });
      });

      await t.step("no Content-Type → 415 naming application/json", async () => {
        // A byte body, so the Request adds no Content-Type of its own.
        const bytes = new TextEncoder().encode(WORLD);
        const res = await app.request("/v1/worlds", { method: "POST", body: bytes });
        assert.equal(res.status, 415);
        const body = await res.json();
        assert.equal(body.error.code, "unsupported_media_type");
        assert.match(body.error.message, /Content-Type: application\/json/);
        assert.deepEqual(body.error.details, { expected: ["application/json"], received: null });
      });
      await t.step(
        "text/plain (curl -d, UnityWebRequest.Post) → 415, nothing created",
        async () => {
          const res = await app.request("/v1/worlds", {
            method: "POST",
            body: WORLD,
            headers: { "content-type": "application/x-www-form-urlencoded" },
          });
          assert.equal(res.status, 415);
          assert.match((await res.json()).error.message, /x-www-form-urlencoded/);
          assert.equal((await app.request("/v1/worlds/town")).status, 404);
        },
      );
      await t.step("a route reading several types names them all", async () => {
        const res = await app.request("/v1/worlds/town/agents/import", {
          method: "POST",
          body: "hello",
          headers: { "content-type": "text/plain" },
        });
        assert.equal(res.status, 415);
        const body = await res.json();
        assert.equal(body.error.code, "unsupported_media_type");
        assert.deepEqual(body.error.details.expected, [
          "application/json",
          "image/png",
        ]);
      });
      await t.step("the same body with application/json is accepted", async () => {
        const res = await app.request("/v1/worlds", {
          method: "POST",
          body: WORLD,
          headers: { "content-type": "application/json; charset=utf-8" },
        });
        assert.equal(res.status, 201);
      });
      await t.step("any framework 4xx keeps its status and gets a code", async () => {
        const res = await app.request("/v1/teapot/429");
        assert.equal(res.status, 429);
        assert.deepEqual(await res.json(), {
          error: { code: "rate_limited", message: "Slow down" },
        });
        assert.equal((await app.request("/v1/teapot/405")).status, 405);
      });
      await t.step("no client error is logged at error level", () => {
        assert.deepEqual(lines.filter((l) => l.level === "error"), []);
      });
      await t.step(
        "a framework 5xx is a server fault, logged as an error with the id",
        async () => {
          const res = await app.request("/v1/teapot/503");
          assert.equal(res.status, 503);
          const body = await res.json();
          assert.equal(body.error.code, "internal_error");
          assert.match(body.error.message, /req-42/);
          const errors = lines.filter((l) => l.level === "error");
          assert.ok(errors.length >= 1);
          assert.ok(errors.every((l) => l.requestId === "req-42"));
          assert.ok(errors.some((l) => l.msg === "request failed"));
        },
      );
    },
  });
}

Deno.test({
  name: "error statuses: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
