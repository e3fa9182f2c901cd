/**
 * `POST /v1/admin/repair` on both backends (the hosted one on a local redis-server behind the
 * Upstash gateway): a sweep larger than `limit` answers a `cursor` and its progress, and the
 * calls that send it back cover the rest; a malformed cursor is a 400.
 */
import assert from "node:assert/strict";
import { appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgents } from "../_helpers/http_world.ts";

const { backends, close } = await startBackends();

for (const backend of backends) {
  Deno.test({
    name: `[${backend.name}] POST /v1/admin/repair pages through a store with a cursor`,
    ...sanitizersFor(backend),
    fn: () =>
      appOn(backend)(async (app) => {
        const w = await worldWithAgents(
          app,
          ["ann", "bob", "cy"].map((id) => ({
            id,
            name: id,
            description: `${id} sails; ${id} rows`,
          })),
        );
        const worlds = [w.split("/").at(-1)];
        const pages = [];
        let cursor: string | undefined;
        do {
          const res = await call(app, "POST", "/v1/admin/repair", { worlds, limit: 2, cursor });
          assert.equal(res.status, 200, JSON.stringify(res.body));
          pages.push(res.body);
          cursor = res.body.cursor ?? undefined;
        } while (cursor !== undefined && pages.length < 10);
        assert.deepEqual(pages.map((p) => [p.done, p.agents, p.swept, p.memories]), [
          [1, 3, 1, 2],
          [2, 3, 1, 2],
          [3, 3, 1, 2],
        ]);
        assert.equal(pages.at(-1).cursor, null);

        // Without a body: the default limit, which this small world is well under.
        const whole = await call(app, "POST", "/v1/admin/repair");
        assert.equal(whole.status, 200, JSON.stringify(whole.body));
        assert.equal(whole.body.cursor, null);
        assert.equal(whole.body.done, whole.body.agents);

        const bad = await call(app, "POST", "/v1/admin/repair", { cursor: "../etc" });
        assert.equal(bad.status, 400, JSON.stringify(bad.body));
      }),
  });
}

Deno.test({
  name: "admin route tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
