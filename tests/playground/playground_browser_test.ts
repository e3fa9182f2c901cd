/**
 * The playground in headless Chromium against a real server with the offline model: everything
 * a person does in it, through the page's own controls, with no request leaving the server and
 * no console error.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { browserTest } from "../_helpers/browser.ts";
import { openPlayground } from "../_helpers/playground_session.ts";

const CARD = {
  spec: "chara_card_v2",
  spec_version: "2.0",
  data: {
    name: "Wren Calloway",
    description: "Wren Calloway is a travelling clockmaker who just arrived in town",
    personality: "patient, precise, curious",
    scenario: "Wren is looking for a workshop to rent",
    first_mes: "Good morning! Do you know a place with good light?",
    mes_example: "",
    creator_notes: "",
    system_prompt: "",
    post_history_instructions: "",
    alternate_greetings: [],
    tags: [],
    creator: "tests",
    character_version: "1",
    extensions: {},
  },
};

browserTest(
  "playground: create the example town, tick, open an agent, retrieve, talk, edit an object, import a card",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    await page.goto(`${s.server.url}/`);
    await page.getByText("No worlds yet").waitFor();
    await page.getByText("Offline stand-in model").waitFor();

    // Worlds: create the example town (the form's default).
    await page.getByLabel("Start from").selectOption("smallville");
    await page.getByRole("button", { name: "Create world" }).click();
    await page.waitForURL(/\?world=/);
    const worldId = new URL(page.url()).searchParams.get("world")!;
    await page.locator("#clock-time").getByText("07:00").waitFor();
    await page.getByText("● Live").waitFor();
    await page.locator("#clock").getByText("manual clock").waitFor(); // the form's default
    assert.equal(await page.locator(".area").count() >= 20, true, "the town's areas are drawn");

    // Tick: the clock moves and the agents walk onto the board through the SSE stream.
    await page.getByRole("button", { name: "Tick", exact: true }).click();
    await page.locator("#clock-time").getByText("07:10").waitFor();
    const ayesha = page.locator('.sub-area .agent-chip[data-agent="ayesha"]');
    await ayesha.waitFor();
    assert.match((await ayesha.getAttribute("aria-label"))!, /^Ayesha Rahman: \S/);
    await page.getByRole("tab", { name: "Timeline" }).click();
    await page.locator('.event[data-type="tick"]').first().waitFor();
    await page.getByLabel("Show", { exact: true }).selectOption("all");
    assert.ok(await page.locator('.event[data-type="action"]').count() > 0);
    await page.getByLabel("Show events of").selectOption("ayesha");
    const shown = await page.locator(".event").evaluateAll((rows) =>
      rows.map((r) => r.textContent ?? "")
    );
    assert.ok(shown.length > 0 && shown.every((t) => t.includes("Ayesha")), shown.join("\n"));

    // A second tick brings the first conversation (07:20); the timeline opens its lines.
    await page.getByLabel("Show events of").selectOption("");
    await page.getByRole("button", { name: "Tick", exact: true }).click();
    await page.locator("#clock-time").getByText("07:20").waitFor();
    const talk = page.locator('.event[data-type="conversation"]').first();
    await talk.getByRole("button", { name: /^Show the \d+ lines$/ }).click();
    await talk.locator(".transcript li").nth(1).waitFor();

    // A reflection, made through the API as a game would, to open as a tree in the page.
    const reflected = await fetch(`${s.server.url}/v1/worlds/${worldId}/agents/ayesha/reflect`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ force: true }),
    });
    assert.equal(reflected.status, 200);
    assert.ok((await reflected.json()).reflections.length > 0);

    // Agent panel: summary, plan with the current action highlighted in its decomposition.
    await ayesha.click();
    await page.waitForURL(/agent=ayesha/);
    await page.locator("#agent-name").getByText("Ayesha Rahman").waitFor();
    const currentItem = page.locator('.plan > li[aria-current="true"]');
    await currentItem.waitFor();
    const [, from, to] = /(\d\d:\d\d)–(\d\d:\d\d)/.exec(await currentItem.innerText())!;
    assert.ok(from <= "07:20" && "07:20" < to, `the item in progress at 07:20: ${from}–${to}`);
    await currentItem.locator('.actions li[aria-current="true"]').waitFor();
    await page.getByRole("button", { name: "Build persona" }).waitFor();

    // Reflections open into the memories they rest on.
    const kinds = page.getByRole("group", { name: "Memory kinds" });
    await kinds.getByRole("button", { name: "reflection" }).click();
    const reflection = page.locator(".memories .memory.reflection").first();
    await reflection.getByRole("button", { name: /^Evidence/ }).click();
    await reflection.locator(".tree li[data-memory]").first().waitFor();

    // Memory stream with kind filters.
    await kinds.getByRole("button", { name: "seed" }).click();
    await page.locator(".memory.seed").first().waitFor();
    assert.equal(await page.locator(".memories .memory:not(.seed)").count(), 0);
    assert.ok(await page.locator(".memories .badge.prov.seed").count() > 0, "provenance badges");

    // Retrieval: score and the three bars for each result.
    await page.getByLabel("Query", { exact: true }).fill("Who does Ayesha cook dinner with?");
    await page.getByRole("button", { name: "Retrieve" }).click();
    const first = page.locator(".retrieval .retrieved").first();
    await first.waitFor();
    assert.match(await first.locator(".score").innerText(), /^\d+\.\d{3}$/);
    assert.equal(await first.getByRole("meter").count(), 3);
    assert.match(await page.locator(".retrieval").innerText(), /cook/, "relevant memories");

    // Talk: a chat message and the reply with what it used.
    await page.getByLabel("Message").fill("What are you working on these days?");
    await page.getByRole("button", { name: "Send" }).click();
    const reply = page.locator(".chat-log .reply:not(.pending)").first();
    await reply.waitFor();
    const replyText = await reply.locator(".reply-text").innerText();
    assert.ok(replyText.length > 0 && !replyText.startsWith("Ayesha Rahman:"), replyText);
    assert.match(await reply.locator("summary").innerText(), /memories .* tokens/);
    // An interview writes nothing, and says so.
    await page.getByRole("radio", { name: "Interview" }).check();
    await page.getByLabel("Message").fill("What do you value most?");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".chat-log .reply:not(.pending)").nth(1).waitFor();

    // World edits: click an object on the board, give it a new state.
    await page.getByRole("button", { name: "Show objects" }).click();
    await page.locator('[data-object="Marigold Cafe:cafe:coffee machine"]').click();
    const picked = await page.getByLabel("Object", { exact: true }).inputValue();
    assert.equal(picked, "Marigold Cafe:cafe:coffee machine");
    await page.getByLabel("State", { exact: true }).fill("brewing a fresh pot");
    await page.getByRole("button", { name: "Set state" }).click();
    await page.getByText("is now “brewing a fresh pot”").waitFor();
    await page.locator('[data-object="Marigold Cafe:cafe:coffee machine"]')
      .getByText("brewing a fresh pot").waitFor();

    // Character Card import by the file picker.
    await page.getByLabel("Character card file").setInputFiles({
      name: "wren.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(CARD)),
    });
    await page.getByText(/Imported Wren Calloway as/).waitFor();
    await page.locator('.agent-chip[aria-label^="Wren Calloway"]').waitFor();
    // …and by dropping a file on the page.
    const dropped = await page.evaluateHandle(`(() => {
      const data = new DataTransfer();
      const card = ${JSON.stringify({ ...CARD, data: { ...CARD.data, name: "Ada Vance" } })};
      data.items.add(new File([JSON.stringify(card)], "ada.json", { type: "application/json" }));
      return data;
    })()`);
    await page.dispatchEvent("#card-drop", "drop", { dataTransfer: dropped });
    await page.getByText(/Imported Ada Vance as/).waitFor();

    // Usage, labelled as the offline stand-in.
    await page.getByRole("tab", { name: "Usage" }).click();
    await page.locator("#usage-offline").waitFor();
    await page.getByRole("rowheader", { name: "plan.day" }).waitFor();
    await page.getByRole("columnheader", { name: "Cached prompt tokens" }).first().waitFor();
    await page.locator("#usage-cached").waitFor();

    // A deep link opens the agent straight away.
    await page.goto(`${s.server.url}/?world=${worldId}&agent=nadia`);
    await page.locator("#agent-name").getByText("Nadia Haddad").waitFor();

    assert.deepEqual(s.outside, [], "no request left the server");
    assert.deepEqual(s.failed, [], "no failed request");
    assert.deepEqual(s.errors, [], "no console errors");
    assert.ok(s.requests.some((u) => u.includes("/events")), "the page followed the SSE stream");
  },
);

browserTest("playground: Play ticks on its own until Pause", async (browser) => {
  await using s = await openPlayground(browser);
  const { page } = s;
  await page.goto(`${s.server.url}/`);
  await page.getByLabel("Start from").selectOption("");
  await page.getByLabel("Name").fill("Quiet place");
  await page.getByRole("button", { name: "Create world" }).click();
  await page.locator("#clock-time").getByText("07:00").waitFor();
  await page.getByText("This world has no environment (areas").waitFor();
  await page.getByLabel("Play speed").selectOption({ label: "As fast as ticks finish" });
  await page.getByRole("button", { name: "Play" }).click();
  const clock = page.locator("#clock-time");
  for (let i = 0; i < 200 && (await clock.innerText()).slice(-5) < "07:30"; i++) {
    await page.waitForTimeout(50);
  }
  assert.ok((await clock.innerText()).slice(-5) >= "07:30", "three ticks or more by themselves");
  await page.getByRole("button", { name: "Pause" }).click();
  // The tick in flight finishes, then Play is back.
  await page.locator('#play[aria-pressed="false"]:not([disabled])').waitFor();
  const stopped = await clock.innerText();
  await page.waitForTimeout(500);
  assert.equal(await clock.innerText(), stopped, "paused means no ticks");
  assert.deepEqual(s.outside, []);
  // An empty world has no environment: an empty state on the board, not a failed request.
  assert.deepEqual(s.failed, []);
  assert.deepEqual(s.errors, []);
});

browserTest("playground: a failed request shows the API's own error message", async (browser) => {
  await using s = await openPlayground(browser);
  const { page } = s;
  await page.goto(`${s.server.url}/?world=nowhere`);
  const alert = page.getByRole("alert");
  await alert.waitFor();
  assert.match(await alert.innerText(), /Cannot find world "nowhere"/);
  assert.match(await alert.innerText(), /world_not_found/);
  await page.getByRole("button", { name: "Back to worlds" }).click();
  await page.getByText("No worlds yet").waitFor();
});

browserTest(
  "playground: with an admin key it asks once, keeps the key for the tab session and streams with it",
  async (browser) => {
    const key = "playground-admin-key-0123456789";
    await using s = await openPlayground(browser, { env: { SIMULACRA_ADMIN_KEY: key } });
    const { page } = s;
    await page.goto(`${s.server.url}/`);
    const dialog = page.getByRole("dialog", { name: "Admin key" });
    await dialog.waitFor();
    await dialog.getByLabel("Admin key").fill(key);
    await dialog.getByRole("button", { name: "Use key" }).click();
    await page.getByText("No worlds yet").waitFor();
    assert.equal(await page.evaluate('sessionStorage.getItem("simulacra.adminKey")'), key);
    assert.equal(await page.evaluate("localStorage.length"), 0, "never kept beyond the tab");

    await page.getByLabel("Start from").selectOption("");
    await page.getByRole("button", { name: "Create world" }).click();
    await page.getByText("● Live").waitFor();
    await page.reload();
    await page.getByText("● Live").waitFor();
    assert.equal(await dialog.isVisible(), false, "not asked again in the same session");
    assert.ok(s.requests.every((u) => !u.includes(key)), "the key never travels in a URL");
    assert.deepEqual(s.outside, []);
    // Only the 401 that brings up the prompt.
    assert.deepEqual(s.failed, ["401 /v1/worlds"]);
    assert.equal(s.errors.length, s.failed.length);
  },
);

browserTest(
  "playground: works at phone width, keyboard reachable, every control named",
  async (browser) => {
    await using s = await openPlayground(browser, { viewport: { width: 390, height: 844 } });
    const { page } = s;
    await page.goto(`${s.server.url}/`);
    await page.getByRole("button", { name: "Create world" }).click();
    await page.locator("#clock-time").waitFor();
    await page.getByRole("button", { name: "Tick", exact: true }).click();
    await page.locator("#clock-time").getByText("07:10").waitFor(); // people stand before it
    await page.locator('.sub-area .agent-chip[data-agent="ayesha"]').click();
    await page.locator("#agent-name").waitFor();
    const overflow = await page.evaluate<number>("document.documentElement.scrollWidth");
    assert.ok(overflow <= 390, `no sideways scrolling at phone width (${overflow}px wide)`);

    // Every button, field and link has an accessible name.
    // (Deno checks this file without the DOM types, so the page code is a string.)
    const unnamed = await page.evaluate<string[]>(`
    [...document.querySelectorAll("button, input, select, textarea, a[href]")]
      .filter((el) => el.offsetParent !== null)
      .filter((el) => !(el.labels?.length || el.getAttribute("aria-label") ||
        el.getAttribute("aria-labelledby") || el.textContent.trim()))
      .map((el) => el.outerHTML.slice(0, 120))
  `);
    assert.deepEqual(unnamed, []);

    // From a fresh load, Tab reaches the Tick button and Enter presses it.
    await page.reload();
    await page.locator("#agent-name").waitFor();
    let reached = false;
    for (let i = 0; i < 40 && !reached; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate<boolean>('document.activeElement?.id === "tick"');
    }
    assert.ok(reached, "Tick is reachable with the keyboard");
    await page.keyboard.press("Enter");
    await page.locator("#clock-time").getByText("07:20").waitFor();
    assert.deepEqual(s.outside, []);
    assert.deepEqual(s.errors, []);
  },
);
