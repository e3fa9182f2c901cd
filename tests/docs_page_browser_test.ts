/**
 * `/docs` in real Chromium: Swagger UI lists every operation (the 2 s budget is in the bench) and
 * renders each with its schemas expanded, and its try-it console sends an authorized request and
 * shows the answer; nothing leaves the server and the console stays free of errors.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../lib/logger.ts";
import { createApp } from "../routes/app.ts";
import { browserTest } from "./_helpers/browser.ts";
import { makeTestDeps } from "./_helpers/test_deps.ts";
import { allListed, DOCS_OPERATION_SELECTOR } from "./_helpers/docs_page.ts";

const ADMIN_KEY = "docs-admin-key-0123456789";

browserTest(
  "/docs renders the API offline, schemas expanded, and its console sends requests",
  async (browser) => {
    await using deps = await makeTestDeps();
    const app = createApp(deps, { adminKey: ADMIN_KEY, logger: silentLogger });
    await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
    const origin = `http://127.0.0.1:${server.addr.port}`;
    const page = await browser.newPage();
    const offOrigin: string[] = [];
    const errors: string[] = [];
    page.on("console", (msg) => msg.type() === "error" && errors.push(msg.text()));
    page.on("pageerror", (err) => errors.push(err.message));
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`)) return route.continue();
      offOrigin.push(url);
      return route.abort();
    });

    const doc = await (await app.request("/openapi.json")).json();
    const operations = Object.values(doc.paths as Record<string, object>)
      .reduce((n, item) => n + Object.keys(item).length, 0);
    // Issue 26: every operation is listed (within 2 s on the 2-core machine: a budget the bench
    // `tests/bench/docs_page_load.ts` measures, not this test, which shares the machine).
    await page.goto(`${origin}/docs`);
    await page.waitForFunction(allListed(operations), undefined, { timeout: 30_000 });
    assert.equal(await page.locator(DOCS_OPERATION_SELECTOR).count(), operations);

    // Request and response schemas are shown as models with their fields, not as $refs.
    const create = page.locator("#operations-Worlds-createWorld");
    await create.locator(".opblock-summary").click();
    const body = create.locator(".opblock-section-request-body");
    const titles = async (scope: typeof body) => {
      const cells = scope.locator(".model-title, tr.property-row > td:first-child")
        .filter({ visible: true });
      return (await cells.allInnerTexts()).map((text) => text.replace(/\*$/, "").trim());
    };
    // `reflectionThreshold` sits inside `settings`: nested objects are open too.
    const requestFields = await titles(body);
    for (
      const field of ["name", "startTime", "minutesPerTick", "settings", "reflectionThreshold"]
    ) {
      assert.ok(requestFields.includes(field), `request body field ${field} not shown`);
    }
    const responseFields = await titles(create.locator(".response[data-code='201'] .model-box"));
    for (const field of ["World", "id", "name", "clock", "now", "settings"]) {
      assert.ok(responseFields.includes(field), `response field ${field} not shown`);
    }
    assert.doesNotMatch(await page.locator("body").innerText(), /\$ref/);

    // The console: authorize with the admin key, then create a world through the page.
    await page.locator(".auth-wrapper .authorize").click();
    await page.locator(".modal-ux input").fill(ADMIN_KEY);
    await page.locator(".modal-ux .auth-btn-wrapper .authorize").click();
    await page.locator(".modal-ux .btn-done").click();
    await create.locator(".try-out__btn").click();
    await create.locator("textarea.body-param__text").fill(
      JSON.stringify({ id: "docs-town", name: "Docs Town", startTime: "2023-02-13T07:00:00" }),
    );
    await create.locator(".execute").click();
    const live = create.locator(".live-responses-table");
    await live.locator(".response-col_status", { hasText: "201" }).waitFor({ timeout: 15_000 });
    assert.match(await live.innerText(), /"id": "docs-town"/);

    const stored = await app.request("/v1/worlds/docs-town", {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    assert.equal(stored.status, 200, "the console's request did not reach the server");

    assert.deepEqual(offOrigin, [], "the page asked another host");
    assert.deepEqual(errors, [], "the page logged errors");
  },
);
