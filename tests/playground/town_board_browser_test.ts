/**
 * The living town in headless Chromium with the offline model: the example town's people stand
 * on the map before the first tick, a tick's moves glide, a conversation shows its lines as
 * bubbles, the timeline folds object changes, and a phone neither scrolls sideways nor loses the
 * agent panel a tap opens.
 */
import assert from "node:assert/strict";
// Test-only dependency (types only), pinned like tests/_helpers/browser.ts.
// deno-lint-ignore no-import-prefix
import type { Page } from "npm:playwright-core@1.65.1";
import { browserTest } from "../_helpers/browser.ts";
import { openPlayground } from "../_helpers/playground_session.ts";

async function createTown(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel("Start from").selectOption("smallville");
  await page.getByRole("button", { name: "Create world" }).click();
  await page.locator("#clock-time").getByText("07:00").waitFor();
  await page.locator(".sub-area .token-slot").nth(24).waitFor(); // all 25 stand in rooms
}

async function tickTo(page: Page, time: string): Promise<void> {
  await page.getByRole("button", { name: "Tick", exact: true }).click();
  await page.locator("#clock-time").getByText(time).waitFor();
  await page.locator("#tick:not([disabled])").waitFor();
}

/** Tokens drawn outside their room's box (the page code is a string: no DOM types here). */
const TOKENS_OUTSIDE = `[...document.querySelectorAll(".sub-area .token-slot")].filter((t) => {
  const r = t.getBoundingClientRect();
  const box = t.closest(".sub-area").getBoundingClientRect();
  return r.left < box.left - 0.5 || r.right > box.right + 0.5;
}).map((t) => t.dataset.slot)`;

const WIDTH = "document.documentElement.scrollWidth";

/** Whether the element is wholly on the screen (page code as a string). */
function inView(selector: string): string {
  return `(() => {
    const r = document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect();
    return r.top >= 0 && r.bottom <= innerHeight;
  })()`;
}

/**
 * Polls a page expression until it is true (waitForFunction would evaluate it with eval, which
 * the page's CSP refuses).
 */
async function until(page: Page, expression: string, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await page.evaluate<boolean>(expression)) return;
    await page.waitForTimeout(50);
  }
  assert.fail(`timed out waiting until ${what}`);
}

browserTest(
  "town board: the example town's people stand on the map before the first tick, the first screen shows most of them, the layout survives a reload",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    await createTown(page, s.server.url);
    const tokens = page.locator(".sub-area .token-slot");
    await tokens.nth(24).waitFor();
    assert.equal(await tokens.count(), 25, "every agent stands in a room");
    assert.equal(await page.locator(".unplaced").isVisible(), false, "no one is off the map");
    const ayesha = page.locator('.sub-area[data-room="Ashford College Dorm:Ayesha Rahman\'s room"]')
      .locator('.agent-chip[data-agent="ayesha"]');
    assert.equal(await ayesha.getAttribute("aria-label"), "Ayesha Rahman: by the bed");
    await ayesha.hover();
    await ayesha.locator(".tip").getByText("Ayesha Rahman: by the bed").waitFor();

    // The first screen (1280×800) shows most people: the map scrolled to the homes.
    const inView = await page.evaluate<number>(`(() => {
      const view = document.querySelector(".map-view").getBoundingClientRect();
      return [...document.querySelectorAll(".sub-area .token-slot")].filter((t) => {
        const r = t.getBoundingClientRect();
        return r.top >= Math.max(0, view.top) && r.bottom <= Math.min(innerHeight, view.bottom);
      }).length;
    })()`);
    assert.ok(inView >= 13, `${inView} of 25 people on the first screen`);
    assert.match(await page.locator(".overview").innerText(), /^25 people/);
    assert.deepEqual(await page.evaluate(TOKENS_OUTSIDE), [], "tokens stay inside their rooms");

    const cells = `[...document.querySelectorAll(".map .area")].map((a) => {
      const s = getComputedStyle(a);
      return a.dataset.area + " " + s.gridColumnStart + " " + s.gridRowStart + " " + s.gridColumnEnd;
    })`;
    const before = await page.evaluate<string[]>(cells);
    const places = new Set(before.map((c) => c.split(" ").slice(-4, -2).join()));
    assert.ok(before.length >= 20 && places.size === before.length, "each area its own cell");
    await page.reload();
    await tokens.nth(24).waitFor();
    assert.deepEqual(await page.evaluate<string[]>(cells), before, "the same map after a reload");
    assert.deepEqual(s.errors, []);
    assert.deepEqual(s.outside, []);
  },
);

browserTest(
  "town board: a conversation shows its lines as bubbles, moves glide, object changes fold by tick",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    await createTown(page, s.server.url);
    // Record every glide: the agent and the room it ends in.
    await page.evaluate(`(() => {
      window.glides = [];
      new MutationObserver((records) => {
        for (const r of records) {
          const t = r.target;
          if (t.classList?.contains("moving") && !(r.oldValue ?? "").includes("moving")) {
            window.glides.push({ id: t.dataset.slot, room: t.closest(".sub-area")?.dataset.room,
              animations: t.getAnimations().length });
          }
        }
      }).observe(document.querySelector(".board"), { subtree: true, attributes: true,
        attributeFilter: ["class"], attributeOldValue: true });
    })()`);

    // 07:20 brings the first conversations: a bubble with a line over a talker.
    await tickTo(page, "07:10");
    await page.getByRole("button", { name: "Tick", exact: true }).click();
    const bubble = page.locator(".token-slot.talking .bubble").first();
    await bubble.waitFor();
    assert.ok((await bubble.innerText()).length > 3, await bubble.innerText());
    await page.locator("#tick:not([disabled])").waitFor();

    // The timeline tells the story; object changes are one line per tick that opens.
    await page.getByRole("tab", { name: "Timeline" }).click();
    const fold = page.locator('.event[data-type="object_state_fold"]').first();
    await fold.waitFor();
    assert.equal(await page.locator('.events > .event[data-type="object_state"]').count(), 0);
    assert.equal(await page.locator('.events > .event[data-type="action"]').count(), 0);
    assert.ok(await page.locator('.events > .event[data-type="conversation"]').count() > 0);
    const summary = fold.locator("summary");
    const n = Number(/^🔧 (\d+) objects? changed$/.exec(await summary.innerText())?.[1]);
    assert.ok(n > 0, await summary.innerText());
    await summary.click();
    assert.equal(await fold.locator(".folded > li").count(), n);
    await page.getByLabel("Show", { exact: true }).selectOption("object_state");
    assert.ok(await page.locator('.events > .event[data-type="object_state"]').count() >= n);

    // Ticks until someone walks to another room: the token glides there.
    const rooms = `Object.fromEntries([...document.querySelectorAll(".sub-area .token-slot")]
      .map((t) => [t.dataset.slot, t.closest(".sub-area").dataset.room]))`;
    const start = await page.evaluate<Record<string, string>>(rooms);
    for (const time of ["07:30", "07:40", "07:50", "08:00", "08:10", "08:20", "08:30"]) {
      await tickTo(page, time);
      if (await page.evaluate<number>("window.glides.length") > 0) break;
    }
    const glides = await page.evaluate<{ id: string; room: string; animations: number }[]>(
      "window.glides",
    );
    assert.ok(glides.length > 0, "someone moved");
    for (const g of glides) {
      assert.notEqual(g.room, start[g.id], `${g.id} glided to another room`);
      assert.equal(g.animations, 1, `${g.id} is animated`);
    }
    const now = await page.evaluate<Record<string, string>>(rooms);
    const landed = new Map(glides.map((g) => [g.id, g.room]));
    for (const [id, room] of landed) assert.equal(now[id], room, `${id} stays where it glided`);
    assert.deepEqual(s.errors, []);
    assert.deepEqual(s.failed, []);
  },
);

browserTest(
  "town board on a phone: no sideways scroll at 360–414 px, a tapped agent's panel comes into view and the town is one tap back",
  async (browser) => {
    await using s = await openPlayground(browser, { viewport: { width: 390, height: 844 } });
    const { page } = s;
    for (const width of [360, 390, 414]) {
      await page.setViewportSize({ width, height: 844 });
      await page.goto(`${s.server.url}/`);
      await page.getByLabel("Time moves").waitFor();
      assert.ok(await page.evaluate<number>(WIDTH) <= width, `home page at ${width} px`);
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await createTown(page, s.server.url);
    assert.ok(await page.evaluate<number>(WIDTH) <= 390, "town view at 390 px");
    assert.deepEqual(await page.evaluate(TOKENS_OUTSIDE), [], "tokens stay inside their rooms");
    // Occupied places come first: the first screen holds people.
    assert.ok(await page.locator(".sub-area .token-slot").first().isVisible());
    const first = await page.locator(".sub-area .token-slot").first().boundingBox();
    assert.ok(first && first.y < 844, `a person on the first screen (y ${first?.y})`);

    const ayesha = page.locator('.sub-area .agent-chip[data-agent="ayesha"]');
    await ayesha.click();
    const name = page.locator("#agent-name");
    await name.getByText("Ayesha Rahman").waitFor();
    await until(page, inView("#agent-name"), "the agent's name is on the screen");
    assert.ok(await page.evaluate<number>(WIDTH) <= 390, "agent panel at 390 px");
    await page.getByRole("button", { name: "↑ Back to the town" }).click();
    await until(page, inView('.agent-chip[data-agent="ayesha"]'), "back at Ayesha's token");
    for (const width of [360, 414]) {
      await page.setViewportSize({ width, height: 844 });
      assert.ok(await page.evaluate<number>(WIDTH) <= width, `town and panel at ${width} px`);
    }
    assert.deepEqual(s.errors, []);
    assert.deepEqual(s.outside, []);
  },
);

browserTest(
  "town board: a conversation of three marks its room with a group badge and plays each speaker's line",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    await createTown(page, s.server.url);
    // The offline model holds conversations of two: the stream and the transcript of a group
    // conversation are served to the page as the server would send them.
    const talk = {
      type: "conversation",
      seq: 100_000,
      at: "2023-02-13T07:00:00",
      agentId: "ayesha",
      conversationId: "c_group",
      participants: ["ayesha", "nadia", "jun"],
      topic: "the Sunday dinner",
      lines: 2,
      endedBy: "turn_cap",
      endedAt: "2023-02-13T07:02:00",
    };
    await page.route(/\/events\?after=/, (route) =>
      route.fulfill({
        status: 200,
        headers: { "content-type": "text/event-stream" },
        body: `event: conversation\ndata: ${JSON.stringify(talk)}\n\n`,
      }));
    await page.route(/\/conversations\/c_group$/, (route) =>
      route.fulfill({
        status: 200,
        contentType: "application/json",
        body: JSON.stringify({
          id: "c_group",
          participants: talk.participants,
          endedBy: "turn_cap",
          lines: [
            { speaker: "nadia", name: "Nadia Haddad", text: "Dinner at seven, all three of us?" },
            { speaker: "jun", name: "Jun Park", text: "I will bring the rice." },
          ].map((l, i) => ({ ...l, at: `2023-02-13T07:0${i}:00` })),
        }),
      }));
    await page.reload();
    const room = page.locator(".sub-area.group-talking");
    await room.locator(".group-talk").getByText("👥 3 talking").waitFor();
    assert.equal(await room.getAttribute("data-room"), "Ashford College Dorm:Ayesha Rahman's room");
    assert.equal(await page.locator(".token-slot.talking").count(), 3, "the three are ringed");
    await page.locator('.token-slot[data-slot="nadia"] > .bubble')
      .getByText("Dinner at seven, all three of us?").waitFor();
    await page.locator('.token-slot[data-slot="jun"] > .bubble')
      .getByText("I will bring the rice.").waitFor();
    await page.locator('.event[data-type="conversation"]')
      .getByText("talked with Nadia Haddad and Jun Park about the Sunday dinner").waitFor();
    // When the lines are over, the badge and the rings go.
    await room.locator(".group-talk").waitFor({ state: "detached", timeout: 10_000 });
    assert.equal(await page.locator(".token-slot.talking").count(), 0);
    assert.deepEqual(s.errors, []);
  },
);
