/**
 * @module The living town's numbers in headless Chromium with the offline model (issue 26):
 * the first meaningful paint of the town view (all 25 people of the example town on the board)
 * after pressing Create world, and the main-thread time one tick costs the open page (the event
 * stream read, the board's tokens moved, bubbles, the timeline redrawn), read from Chromium's
 * performance metrics over CDP. Ticks are sent over HTTP, not with the page's button, so only the
 * stream → repaint path is measured. Run:
 * `deno run -A --lock=deno.dev.lock tests/bench/town_board.ts [--runs 5] [--ticks 12]`.
 */
import { parseArgs } from "node:util";
import { silentLogger } from "../../lib/logger.ts";
import { startServer } from "../../main.ts";
import { launchChromium } from "../_helpers/browser.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "5" }, // towns created for the paint
    ticks: { type: "string", default: "12" }, // ticks timed on one open town
  },
});

const runs = Number(values.runs);
const ticks = Number(values.ticks);

/** "median … ms, max … ms (n samples)". */
function spread(xs: number[]): string {
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted[Math.floor(sorted.length / 2)];
  return `median ${mid.toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${xs.length} samples)`;
}

const dataDir = await Deno.makeTempDir();
const server = await startServer(
  { SIMULACRA_DATA_DIR: dataDir },
  { logger: silentLogger, cron: () => {}, port: 0, announce: () => {} },
);
try {
  await using browser = await launchChromium();
  const paint: number[] = [];
  let worldId = "";
  for (let r = 0; r < runs; r++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${server.url}/`);
    await page.getByLabel("Start from").selectOption("smallville");
    // Timed in the page, from the click to the frame after the 25th person stands on the board.
    await page.evaluate(`(() => {
      document.addEventListener("click", (e) => {
        if (e.target.closest("button")?.textContent !== "Create world") return;
        const t0 = performance.now();
        const seen = new MutationObserver(() => {
          if (document.querySelectorAll(".sub-area .token-slot").length < 25) return;
          seen.disconnect();
          requestAnimationFrame(() => { window.painted = performance.now() - t0; });
        });
        seen.observe(document.body, { childList: true, subtree: true });
      }, { capture: true });
    })()`);
    await page.getByRole("button", { name: "Create world" }).click();
    await page.locator(".sub-area .token-slot").nth(24).waitFor({ timeout: 60_000 });
    let painted: number | null = null;
    while (painted === null) {
      painted = await page.evaluate<number | null>("window.painted ?? null");
      if (painted === null) await page.waitForTimeout(20);
    }
    paint.push(painted);
    worldId = await page.evaluate<string>(`new URLSearchParams(location.search).get("world")`);
    await page.close();
  }

  // One open town; each tick's main-thread time from the stream's first byte to the repaint.
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.url}/?world=${worldId}`);
  await page.locator(".stream.live").waitFor();
  await page.locator(".sub-area .token-slot").nth(24).waitFor();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable", { timeDomain: "threadTicks" });
  const metrics = async () => {
    const { metrics } = await cdp.send("Performance.getMetrics");
    return Object.fromEntries(metrics.map((m) => [m.name, m.value]));
  };
  const script: number[] = [];
  const task: number[] = [];
  let moved = 0;
  for (let i = 0; i < ticks; i++) {
    await page.waitForTimeout(300); // let the last tick's bubbles settle out of the window
    const before = await metrics();
    const res = await fetch(`${server.url}/v1/worlds/${worldId}/tick`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    const tick = await res.json();
    const hhmm = tick.clock.now.slice(11, 16);
    await page.locator("#clock-time").getByText(hhmm).waitFor();
    await page.waitForTimeout(250); // the tick's last batches and their frame
    const after = await metrics();
    script.push((after.ScriptDuration - before.ScriptDuration) * 1000);
    task.push((after.TaskDuration - before.TaskDuration) * 1000);
    moved += await page.evaluate<number>(`document.querySelectorAll(".token-slot.moving").length`);
  }
  // deno-lint-ignore no-console
  console.log(
    [
      `first meaningful paint (Create world → 25 people on the board), ${runs} runs: ${
        spread(paint)
      }`,
      `per tick of 25 agents, ${ticks} ticks from 07:00: script ${spread(script)}`,
      `per tick, all main-thread tasks (script, style, layout, paint): ${spread(task)}`,
      `tokens gliding right after a tick (sum over ticks): ${moved}`,
    ].join("\n"),
  );
} finally {
  await server.shutdown();
  await Deno.remove(dataDir, { recursive: true });
}
