import assert from "node:assert/strict";
import { renderAssets } from "../../playground/build.ts";

Deno.test("playground/assets.gen.ts matches playground/public/ (run `deno task playground:build`)", async () => {
  const committed = await Deno.readTextFile(
    new URL("../../playground/assets.gen.ts", import.meta.url),
  );
  assert.ok(
    committed === await renderAssets(),
    "playground/assets.gen.ts is stale: run `deno task playground:build` and commit it",
  );
});

Deno.test("the playground loads nothing from another host", async () => {
  const source = await renderAssets();
  // Any absolute URL in the page's files would be a request off the server (CDN, fonts…).
  const urls = [...source.matchAll(/(?:https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}[^"'\s)]*/gi)]
    .map((m) => m[0]);
  assert.deepEqual(urls.filter((u) => !u.startsWith("http://www.w3.org/2000/svg")), []);
  assert.doesNotMatch(source, /@import|@font-face/);
});
