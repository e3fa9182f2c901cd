import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { PLAYGROUND_ASSETS } from "../../playground/assets.gen.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

Deno.test("GET / serves the playground page with a same-origin-only CSP, even with an admin key", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger, adminKey: "a-very-long-admin-key-123" });
  const res = await app.request("/");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/html/);
  const csp = res.headers.get("content-security-policy")!;
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /connect-src 'self'/);
  const html = await res.text();
  assert.match(html, /<script type="module" src="\/playground\/js\/main.js">/);
  assert.match(html, /<title>Simulacra playground<\/title>/);
});

Deno.test("GET /playground/* serves every embedded file with its type and a 304 on a matching ETag", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  for (const [name, asset] of Object.entries(PLAYGROUND_ASSETS)) {
    const res = await app.request(`/playground/${name}`);
    assert.equal(res.status, 200, name);
    assert.equal(res.headers.get("content-type"), asset.type, name);
    assert.equal(await res.text(), asset.body, name);
    const again = await app.request(`/playground/${name}`, {
      headers: { "if-none-match": res.headers.get("etag")! },
    });
    assert.equal(again.status, 304, name);
    await again.body?.cancel();
  }
  // Every module the page imports is served.
  for (const asset of Object.values(PLAYGROUND_ASSETS)) {
    for (const [, spec] of asset.body.matchAll(/from "\.\/([a-z_]+\.js)"/g)) {
      assert.ok(PLAYGROUND_ASSETS[`js/${spec}`], `js/${spec} is embedded`);
    }
  }
  const missing = await app.request("/playground/js/nope.js");
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).error.code, "route_not_found");
  const sneaky = await app.request("/playground/toString");
  assert.equal(sneaky.status, 404);
  await sneaky.body?.cancel();
});
