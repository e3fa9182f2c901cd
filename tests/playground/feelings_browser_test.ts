/**
 * The agent panel's Feelings section in headless Chromium (issue 22): the mood and the
 * relationship a favour built, each opening onto the memories that explain it.
 */
import assert from "node:assert/strict";
import { browserTest } from "../_helpers/browser.ts";
import { openPlayground } from "../_helpers/playground_session.ts";

browserTest(
  "playground: the agent panel shows mood and relationships with their evidence",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${s.server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const json = await res.json();
      assert.ok(res.ok, JSON.stringify(json));
      return json;
    };
    const world = await post("/v1/worlds", { name: "Feelings", template: "smallville" });
    const a = `/v1/worlds/${world.id}/agents/ayesha`;
    await post(`${a}/respond`, {
      message: "I brought you a gift: fresh bread from the bakery. Thank you for your help.",
      speaker: { name: "Mara" },
    });

    await page.goto(`${s.server.url}/?world=${world.id}&agent=ayesha`);
    await page.locator("#agent-name").getByText("Ayesha Rahman").waitFor();
    const feelings = page.locator('section[aria-labelledby="agent-feelings"]');
    await feelings.getByRole("heading", { name: "Mood" }).waitFor();
    const mara = feelings.locator(".relationship").filter({ hasText: "Mara" });
    await mara.waitFor();
    assert.match(await mara.innerText(), /speaker · met 1×/);
    const trust = await mara.getByRole("meter", { name: /^trust/ }).getAttribute("aria-label");
    assert.match(trust!, /^trust \+0\.\d\d$/, "a favour raised trust");
    await mara.getByRole("button", { name: /^Why/ }).click();
    await mara.locator(".evidence li").getByText(/Mara told me that/).waitFor();
    assert.deepEqual(s.errors, []);
    assert.deepEqual(s.outside, []);
  },
);
