/**
 * The playground's memory stream shows upkeep (README "Memory upkeep"): superseded and archived
 * memories each under their own filter with a badge, and a consolidated memory's merge count.
 */
import assert from "node:assert/strict";
import { browserTest } from "../_helpers/browser.ts";
import { openPlayground } from "../_helpers/playground_session.ts";

async function post(base: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json();
  assert.ok(res.ok, JSON.stringify(json));
  return json;
}

browserTest(
  "playground: the memory stream filters and badges superseded, archived and merged memories",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    const base = s.server.url.replace(/\/$/, "");
    await post(base, "/v1/worlds", {
      id: "inn",
      name: "The Inn",
      startTime: "2023-02-13T07:00:00",
      clock: { mode: "manual" },
      settings: { autoReflect: false },
    });
    const a = "/v1/worlds/inn/agents/mira";
    await post(base, "/v1/worlds/inn/agents", {
      id: "mira",
      name: "Mira Stone",
      description: "Mira keeps the inn at the crossroads",
    });
    await post(base, `${a}/perceive`, {
      observations: [
        { text: "The bakery is on Elm Street", at: "2023-02-13T08:00:00" },
        ...[9, 10, 11, 12].map((h) => ({
          text: "Lucia is wiping the counter",
          at: `2023-02-13T${h < 10 ? `0${h}` : h}:00:00`,
        })),
      ],
    });
    await post(base, `${a}/perceive`, {
      observations: [{ text: "The bakery has moved to Oak Avenue", at: "2023-02-13T13:00:00" }],
    });
    const done = await post(base, `${a}/consolidate`, {});
    assert.equal(done.merged, 3);

    await page.goto(`${base}/?world=inn&agent=mira`);
    await page.locator("#agent-name").getByText("Mira Stone").waitFor();
    const upkeep = page.getByRole("group", { name: "Memory upkeep" });
    // Live: the consolidated memory with its merge count; the superseded fact flagged.
    const merged = page.locator(".memories .memory").filter({ hasText: "wiping the counter" });
    await merged.locator(".badge.upkeep.count").getByText("×4").waitFor();
    assert.equal(await merged.count(), 1, "one memory stands for the four sightings");
    await upkeep.getByRole("button", { name: "Superseded" }).click();
    const old = page.locator(".memories .memory.superseded");
    await old.getByText("The bakery is on Elm Street").waitFor();
    await old.locator(".badge.upkeep.superseded").waitFor();
    assert.equal(await page.locator(".memories .memory:not(.superseded)").count(), 0);
    // Archived: those moved out of the live set, here the three merged sightings.
    await upkeep.getByRole("button", { name: "Archived" }).click();
    await page.locator(".memories .memory.merged .badge.upkeep.merged").first().waitFor();
    assert.equal(await page.locator(".memories .memory.merged").count(), 3);
    await upkeep.getByRole("button", { name: "Live" }).click();
    await page.locator(".memories .memory").filter({ hasText: "Oak Avenue" }).waitFor();
    assert.deepEqual(s.errors, []);
    assert.deepEqual(s.outside, []);
  },
);
