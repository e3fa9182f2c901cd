/**
 * @module `deno task screenshots`: drives the playground in headless Chromium on a fresh server
 * with the offline model (create the example town and show it at 07:00, tick to the first
 * conversation and catch its bubble, tick to mid-morning, open an agent, retrieve, talk, then the
 * phone view) and writes the README's screenshots to `playground/screenshots/`. Needs Debian's
 * `chromium` (and `fonts-noto-color-emoji` for the agents' emoji).
 */
import { silentLogger } from "../lib/logger.ts";
import { startServer } from "../main.ts";
import { launchChromium } from "../tests/_helpers/browser.ts";

const OUT = new URL("./screenshots/", import.meta.url);
const TICKS = 12;

/** Scrolls the side panel (not the page) so a section's heading is at its top. */
function panelTo(headingId: string): string {
  return `(() => {
    const panel = document.getElementById("panel-agent");
    scrollTo(0, 0);
    panel.scrollTop = document.getElementById("${headingId}").parentElement.offsetTop - panel.offsetTop - 8;
  })()`;
}

function say(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

const dataDir = await Deno.makeTempDir({ prefix: "simulacra-screenshots-" });
const server = await startServer(
  { SIMULACRA_DATA_DIR: dataDir },
  { logger: silentLogger, cron: () => {}, port: 0, announce: () => {} },
);
try {
  await Deno.mkdir(OUT, { recursive: true });
  await using browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(`${server.url}/`);
  say("creating the example town…");
  await page.getByRole("button", { name: "Create world" }).click();
  await page.locator("#clock-time").waitFor();
  await page.locator(".sub-area .token-slot").nth(24).waitFor();
  await page.waitForTimeout(300); // the map scrolls to where the people are
  await page.screenshot({ path: new URL("town.png", OUT).pathname });
  say("wrote playground/screenshots/town.png (07:00)");

  const tick = page.getByRole("button", { name: "Tick", exact: true });
  let talked = false;
  for (let i = 1; i <= TICKS; i++) {
    await tick.click();
    await page.locator("#tick:not([disabled])").waitFor();
    say(`tick ${i}/${TICKS}: ${await page.locator("#clock-time").innerText()}`);
    if (talked) continue;
    // The first conversation: its lines play as bubbles over the talkers.
    const bubble = page.locator(".token-slot.talking .bubble").first();
    if (await bubble.count() === 0) await page.waitForTimeout(1000);
    if (await bubble.count() === 0) continue;
    talked = true;
    await page.getByRole("tab", { name: "Timeline" }).click();
    await bubble.evaluate("(b) => b.parentElement.scrollIntoView({ block: 'center' })");
    await page.evaluate("scrollTo(0, 0)");
    await page.screenshot({ path: new URL("conversation.png", OUT).pathname });
    say("wrote playground/screenshots/conversation.png");
  }
  await page.waitForTimeout(500); // the last events arrive over SSE

  await page.locator('.agent-chip[data-agent="lucia"]').first().click();
  await page.locator("#agent-name").waitFor();
  await page.getByLabel("Query", { exact: true }).fill("What is happening at the cafe this week?");
  await page.getByRole("button", { name: "Retrieve" }).click();
  await page.locator(".retrieval .retrieved").first().waitFor();
  await page.getByLabel("Message").fill("How are the preparations for the party going?");
  await page.getByRole("button", { name: "Send" }).click();
  await page.locator(".chat-log .reply:not(.pending)").waitFor();
  await page.evaluate(panelTo("agent-plan"));
  await page.screenshot({ path: new URL("agent.png", OUT).pathname });
  say("wrote playground/screenshots/agent.png");
  await page.evaluate(panelTo("agent-query"));
  await page.screenshot({ path: new URL("retrieval.png", OUT).pathname });
  say("wrote playground/screenshots/retrieval.png");

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tab", { name: "Timeline" }).click();
  await page.evaluate("scrollTo(0, 0)");
  await page.screenshot({ path: new URL("phone.png", OUT).pathname });
  say("wrote playground/screenshots/phone.png");
} finally {
  await server.shutdown();
  await Deno.remove(dataDir, { recursive: true });
}
