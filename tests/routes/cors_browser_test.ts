import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { browserTest } from "../_helpers/browser.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();
const ADMIN_KEY = "cors-admin-key-0123456789";

/** A blank page on its own port: another origin than the API. */
function servePage(): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      new Response("<!doctype html><title>game</title>", {
        headers: { "content-type": "text/html" },
      }),
  );
}

for (const backend of backends) {
  browserTest(
    `[${backend.name}] a page on another origin calls the API: fetch, POST with a key, EventSource`,
    async (browser) => {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      await using game = servePage();
      await using stranger = servePage();
      const gameOrigin = `http://127.0.0.1:${game.addr.port}`;
      // One server with an admin key (fetch, preflighted POST), one without (EventSource cannot
      // send an Authorization header), both allowing only the game's origin.
      await using keyed = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        createApp(deps, { adminKey: ADMIN_KEY, corsOrigins: [gameOrigin], logger: silentLogger })
          .fetch,
      );
      await using open = Deno.serve(
        { hostname: "127.0.0.1", port: 0, onListen() {} },
        createApp(deps, { corsOrigins: [gameOrigin], logger: silentLogger }).fetch,
      );
      const page = await browser.newPage();
      await page.goto(`${gameOrigin}/`);
      const result = await page.evaluate(async ({ keyedApi, openApi, key }) => {
        const auth = { authorization: `Bearer ${key}` };
        const health = await fetch(`${keyedApi}/health`);
        const created = await fetch(`${keyedApi}/v1/worlds`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ id: "town", name: "Town", startTime: "2023-02-13T07:00:00" }),
        });
        const noKey = await fetch(`${keyedApi}/v1/worlds`);
        const tick = await fetch(`${keyedApi}/v1/worlds/town/tick`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ minutes: 10, tickId: "t1" }),
        });
        const event = await new Promise<{ type: string; id: string; data: string }>(
          (resolve, reject) => {
            const source = new EventSource(`${openApi}/v1/worlds/town/events`);
            source.addEventListener("tick", (e) => {
              source.close();
              resolve({
                type: e.type,
                id: (e as MessageEvent).lastEventId,
                data: (e as MessageEvent).data,
              });
            });
            source.onerror = () => {
              source.close();
              reject(new Error("EventSource failed"));
            };
          },
        );
        return {
          health: health.status,
          created: created.status,
          requestId: created.headers.get("x-request-id"),
          noKey: { status: noKey.status, body: await noKey.json() },
          tick: tick.status,
          event,
        };
      }, {
        keyedApi: `http://127.0.0.1:${keyed.addr.port}`,
        openApi: `http://127.0.0.1:${open.addr.port}`,
        key: ADMIN_KEY,
      });
      assert.equal(result.health, 200);
      assert.equal(result.created, 201, "the preflighted POST with a key went through");
      assert.ok(result.requestId, "x-request-id is exposed to the page");
      assert.equal(result.noKey.status, 401, "the page can read the error body of a refused call");
      assert.equal(result.noKey.body.error.code, "unauthorized");
      assert.equal(result.tick, 200);
      assert.equal(result.event.type, "tick");
      assert.equal(JSON.parse(result.event.data).type, "tick");

      // A page from an origin not on the list is blocked by the browser.
      const other = await browser.newPage();
      await other.goto(`http://127.0.0.1:${stranger.addr.port}/`);
      const blocked = await other.evaluate(async (api) => {
        try {
          await fetch(`${api}/v1/worlds`);
          return "read";
        } catch (err) {
          return String(err);
        }
      }, `http://127.0.0.1:${open.addr.port}`);
      assert.match(blocked, /TypeError|Failed to fetch/);
    },
  );
}

Deno.test({
  name: "cors: preflights need no key, allow the documented headers, and only listed origins",
  async fn() {
    await using deps = await makeTestDeps();
    const app = createApp(deps, {
      adminKey: ADMIN_KEY,
      corsOrigins: ["https://game.example.com"],
      logger: silentLogger,
    });
    const preflight = await app.request("/v1/worlds/town/agents/a/respond", {
      method: "OPTIONS",
      headers: {
        origin: "https://game.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization, content-type",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "https://game.example.com");
    const allowed = preflight.headers.get("access-control-allow-headers")!.split(",");
    for (const h of ["authorization", "content-type", "last-event-id"]) {
      assert.ok(allowed.includes(h), h);
    }
    assert.match(preflight.headers.get("access-control-allow-methods")!, /DELETE/);
    const foreign = await app.request("/v1/worlds", {
      headers: { origin: "https://evil.example.com", authorization: `Bearer ${ADMIN_KEY}` },
    });
    assert.equal(foreign.headers.get("access-control-allow-origin"), null);
    const any = createApp(deps, { corsOrigins: "*", logger: silentLogger });
    const res = await any.request("/v1/worlds", { headers: { origin: "https://x.example" } });
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const none = createApp(deps, { logger: silentLogger });
    const plain = await none.request("/v1/worlds", { headers: { origin: "https://x.example" } });
    assert.equal(
      plain.headers.get("access-control-allow-origin"),
      null,
      "no CORS unless configured",
    );
  },
});

Deno.test({
  name: "cors: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
