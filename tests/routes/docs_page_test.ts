/**
 * `/docs` over HTTP: the page loads only same-origin files, each served with its content type and
 * a long cache, and the committed renderer module matches the pinned package.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { DOCS_ASSETS } from "../../routes/docs_assets.generated.ts";
import { GENERATED_PATH, generateDocsAssetsModule } from "../../dev/build_docs_assets.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

/** Every `src`/`href` in the page. */
const urlsIn = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);

Deno.test("GET /docs loads only same-origin files, each with its content type and a year's cache", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const res = await app.request("/docs");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^text\/html/);
  const csp = res.headers.get("content-security-policy")!;
  for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'"]) {
    assert.ok(csp.includes(directive), `CSP lacks ${directive}: ${csp}`);
  }
  const html = await res.text();
  const urls = urlsIn(html);
  const external = urls.filter((url) => !url.startsWith("/") && url !== "data:,");
  assert.deepEqual(external, [], "the page names URLs on other hosts");
  assert.ok(urls.some((url) => url.endsWith(".js")) && urls.some((url) => url.endsWith(".css")));

  const types: Record<string, RegExp> = {
    js: /^text\/javascript; charset=utf-8$/,
    css: /^text\/css; charset=utf-8$/,
    txt: /^text\/plain; charset=utf-8$/,
  };
  for (const url of urls.filter((url) => url.startsWith("/docs/"))) {
    const asset = await app.request(url);
    assert.equal(asset.status, 200, url);
    const type = types[url.slice(url.lastIndexOf(".") + 1)];
    assert.match(asset.headers.get("content-type")!, type, url);
    assert.equal(asset.headers.get("x-content-type-options"), "nosniff");
    const body = await asset.text();
    assert.ok(body.length > 0, url);
    if (url.startsWith("/docs/assets/")) {
      assert.equal(asset.headers.get("cache-control"), "public, max-age=31536000, immutable");
      const etag = asset.headers.get("etag")!;
      const again = await app.request(url, { headers: { "if-none-match": etag } });
      assert.equal(again.status, 304, `${url} is not revalidated by its ETag`);
    }
  }
  // The renderer really is in the page, not a leftover of the hand-written one.
  const script = urls.find((url) => /swagger-ui-bundle\.[0-9a-f]{8}\.js$/.test(url))!;
  assert.match(await (await app.request(script)).text(), /SwaggerUIBundle/);
});

Deno.test("GET /docs/assets/<unknown> is a JSON 404", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const res = await app.request("/docs/assets/swagger-ui-bundle.00000000.js");
  assert.equal(res.status, 404);
  assert.equal((await res.json()).error.code, "route_not_found");
});

Deno.test("routes/docs_assets.generated.ts is what `deno task docs:build` makes from the pinned package", async () => {
  const committed = await Deno.readTextFile(new URL(`../../${GENERATED_PATH}`, import.meta.url));
  assert.ok(
    committed === await generateDocsAssetsModule(),
    `${GENERATED_PATH} is stale or edited by hand: run \`deno task docs:build\` and commit it`,
  );
  for (const asset of Object.values(DOCS_ASSETS)) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(asset.body));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    assert.equal(hex, asset.sha256, asset.name);
    assert.ok(asset.name.includes(hex.slice(0, 8)), `${asset.name} does not carry its hash`);
  }
});
