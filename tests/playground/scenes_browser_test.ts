/**
 * The playground's Scenes tab in headless Chromium (issue 23): a group conversation with every
 * line and its speaker, and playing a player: create one, move it onto the board, talk to an
 * agent, answer it and end the conversation; nothing leaves the server, no console error.
 */
import assert from "node:assert/strict";
import { browserTest } from "../_helpers/browser.ts";
import { openPlayground } from "../_helpers/playground_session.ts";

browserTest(
  "playground: a group conversation, and playing a player who talks to an agent",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    await page.goto(`${s.server.url}/`);
    await page.getByText("No worlds yet").waitFor();
    await page.getByLabel("Start from").selectOption("smallville");
    await page.getByRole("button", { name: "Create world" }).click();
    await page.waitForURL(/\?world=/);
    await page.getByText("● Live").waitFor();
    await page.getByRole("tab", { name: "Scenes" }).click();

    // A group conversation of three: every line with its speaker.
    for (const name of ["Ayesha Rahman", "Felix Brandt", "Priya Raman"]) {
      await page.locator(".scene-picks label", { hasText: name }).locator("input").check();
    }
    await page.getByRole("button", { name: "Start conversation" }).click();
    const lines = page.locator(".scene-result .transcript li");
    await lines.nth(2).waitFor();
    const said = await lines.evaluateAll((items) => items.map((i) => i.textContent ?? ""));
    assert.ok(said[0].startsWith("Ayesha Rahman: "), said.join("\n"));
    assert.ok(said.every((l) => /^(Ayesha Rahman|Felix Brandt|Priya Raman): \S/.test(l)));

    // Play a player: create, move onto the board, talk to Ayesha, answer, end.
    await page.getByPlaceholder("New player's name").fill("Ada");
    await page.getByRole("button", { name: "Create player" }).click();
    await page.getByText("You play Ada.").waitFor();
    await page.getByPlaceholder("Location").fill("Hobbs Cafe:cafe");
    await page.getByPlaceholder("Action, e.g. looking around").fill("looking for a seat");
    await page.getByRole("button", { name: "Move", exact: true }).click();
    await page.getByText("Ada is at Hobbs Cafe:cafe: looking for a seat.").waitFor();
    await page.locator('.agent-chip[data-kind="player"]').first().waitFor();
    await page.getByLabel("Talk to").selectOption({ label: "Ayesha Rahman" });
    await page.getByRole("button", { name: "Talk to them" }).click();
    const open = page.locator(".scene-open").first();
    await open.waitFor();
    await open.getByLabel("Your line").fill("Hello Ayesha, is this seat free?");
    await open.getByRole("button", { name: "Say" }).click();
    await open.locator(".transcript li", { hasText: "Ayesha Rahman: " }).first().waitFor();
    await open.getByRole("button", { name: "End" }).click();
    await open.getByText("Closed (ended).").waitFor();
    assert.deepEqual(s.outside, []);
    assert.deepEqual(s.errors, []);
  },
);
