import assert from "node:assert/strict";
import { browserTest } from "./_helpers/browser.ts";

browserTest("launchChromium() renders a page served by a local Deno server", async (browser) => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("<button>Hi</button>", { headers: { "content-type": "text/html" } }),
  );
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.addr.port}/`);
  assert.equal(await page.getByRole("button", { name: "Hi" }).count(), 1);
});
