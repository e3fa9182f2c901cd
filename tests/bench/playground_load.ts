/**
 * @module Playground load times in headless Chromium on the embedded backend with the offline
 * model: the page's weight, the requests it makes, and how long a world of the example town takes
 * to draw (board with every agent, live stream) and an agent panel to fill. Run:
 * `deno run -A --lock=deno.dev.lock tests/bench/playground_load.ts [--runs 5] [--ticks 12]`.
 */
import { parseArgs } from "node:util";
import { silentLogger } from "../../lib/logger.ts";
import { startServer } from "../../main.ts";
import { PLAYGROUND_ASSETS } from "../../playground/assets.gen.ts";
import { launchChromium } from "../_helpers/browser.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "5" }, ticks: { type: "string", default: "12" } },
});
const runs = Number(values.runs);
const ticks = Number(values.ticks);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function gzipSize(text: string): Promise<number> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return (await new Response(stream).arrayBuffer()).byteLength;
}

const assets = Object.values(PLAYGROUND_ASSETS);
const raw = assets.reduce((n, a) => n + new TextEncoder().encode(a.body).byteLength, 0);
let gz = 0;
for (const a of assets) gz += await gzipSize(a.body);

const dataDir = await Deno.makeTempDir();
const server = await startServer(
  { SIMULACRA_DATA_DIR: dataDir },
  { logger: silentLogger, cron: () => {}, port: 0, announce: () => {} },
);
try {
  const post = async (path: string, body: unknown) =>
    await (await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    })).json();
  const world = await post("/v1/worlds", { name: "Bench", template: "smallville" });
  for (let i = 0; i < ticks; i++) await post(`/v1/worlds/${world.id}/tick`, {});
  const events = (await (await fetch(`${server.url}/v1/worlds/${world.id}/events?limit=1000`))
    .json()).events.length;

  await using browser = await launchChromium();
  const town: number[] = [];
  const agent: number[] = [];
  let requests = 0;
  for (let r = 0; r < runs; r++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    let count = 0;
    page.on("request", () => count++);
    const t0 = performance.now();
    await page.goto(`${server.url}/?world=${world.id}`);
    await page.getByText("● Live").waitFor();
    await page.locator(".sub-area .agent-chip").nth(24).waitFor();
    town.push(performance.now() - t0);
    const t1 = performance.now();
    await page.locator('.agent-chip[data-agent="lucia"]').click();
    await page.locator(".memories .memory").first().waitFor();
    agent.push(performance.now() - t1);
    requests = count;
    await page.close();
  }
  // deno-lint-ignore no-console
  console.log(
    [
      `page: ${assets.length} files, ${(raw / 1024).toFixed(1)} KiB (${
        (gz / 1024).toFixed(1)
      } KiB gzipped)`,
      `world after ${ticks} ticks: ${events} events replayed over SSE on open`,
      `open the town (25 agents on the board, stream live): median ${
        median(town).toFixed(0)
      } ms of ${runs} (min ${Math.min(...town).toFixed(0)})`,
      `open an agent (summary, persona, plan, first memories): median ${
        median(agent).toFixed(0)
      } ms (min ${Math.min(...agent).toFixed(0)})`,
      `requests from navigation to an open agent: ${requests}`,
    ].join("\n"),
  );
} finally {
  await server.shutdown();
  await Deno.remove(dataDir, { recursive: true });
}
