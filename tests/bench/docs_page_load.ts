/**
 * @module How long `/docs` takes in headless Chromium before its operations are listed: from
 * navigation to the first operation and to all of them, with the page's script time and the
 * renderer's bytes. Run:
 * `deno run -A --lock=deno.dev.lock tests/bench/docs_page_load.ts [--runs 5]`.
 */
import { parseArgs } from "node:util";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { DOCS_ASSETS } from "../../routes/docs_assets.generated.ts";
import { launchChromium } from "../_helpers/browser.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { allListed, DOCS_OPERATION_SELECTOR } from "../_helpers/docs_page.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "5" } },
});
const runs = Number(values.runs);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

await using deps = await makeTestDeps();
const app = createApp(deps, { logger: silentLogger });
await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
const doc = await (await app.request("/openapi.json")).json();
const operations = Object.values(doc.paths as Record<string, object>)
  .reduce((n, item) => n + Object.keys(item).length, 0);
await using browser = await launchChromium();
const first: number[] = [];
const all: number[] = [];
const script: number[] = [];
for (let i = 0; i < runs; i++) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Performance.enable");
  const started = performance.now();
  await page.goto(`http://127.0.0.1:${server.addr.port}/docs`);
  const ops = page.locator(DOCS_OPERATION_SELECTOR);
  await ops.first().waitFor({ timeout: 60_000 });
  first.push(performance.now() - started);
  await page.waitForFunction(allListed(operations), undefined, { timeout: 60_000 });
  all.push(performance.now() - started);
  const { metrics } = await cdp.send("Performance.getMetrics");
  const seconds = (name: string) => metrics.find((m) => m.name === name)?.value ?? 0;
  script.push(seconds("ScriptDuration") * 1000);
  await context.close();
}
const bytes = Object.values(DOCS_ASSETS).reduce((n, a) => n + a.body.length, 0);
// deno-lint-ignore no-console
console.log(
  `/docs, ${operations} operations, ${runs} runs (median): first operation ${
    Math.round(median(first))
  } ms, all listed ${Math.round(median(all))} ms, script ${
    Math.round(median(script))
  } ms; renderer files ${(bytes / 1024 / 1024).toFixed(2)} MB; runs: ${
    all.map(Math.round).join(", ")
  } ms`,
);
