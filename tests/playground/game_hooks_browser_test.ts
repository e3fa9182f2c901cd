/**
 * The playground shows the game hooks (issue 22): the agent's goals beside its plan, the plan
 * items serving one, the game action a reply asked for in the Talk transcript, and a tick step's
 * game action that failed the check (action.dropped) in the timeline.
 */
import assert from "node:assert/strict";
import { browserTest } from "../_helpers/browser.ts";
import { openPlayground } from "../_helpers/playground_session.ts";

/** A JSON request to the playground's server that must succeed. */
function sender(url: string) {
  return async (method: string, path: string, body: unknown): Promise<void> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `${method} ${path}: ${await res.text()}`);
  };
}

browserTest(
  "playground: goals beside the plan, game actions in the Talk transcript",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page, server } = s;
    const send = sender(server.url);
    await send("POST", "/v1/worlds", {
      id: "town",
      name: "Town",
      startTime: "2023-02-13T07:00:00",
    });
    await send("POST", "/v1/worlds/town/agents", {
      id: "mira",
      name: "Mira Lund",
      description: "Mira keeps the lantern shop on the harbour",
    });
    await send("PUT", "/v1/worlds/town/actions", [{
      name: "give_item",
      description: "Hand an item to the customer",
      parameters: { type: "object", properties: { item: { type: "string" } }, required: ["item"] },
    }]);
    await send("PUT", "/v1/worlds/town/agents/mira/goals", [
      { id: "cat", description: "find the missing cat", priority: 5 },
    ]);
    await send("POST", "/v1/worlds/town/agents/mira/plan", { date: "2023-02-13" });

    await page.goto(`${server.url}/?world=town&agent=mira`);
    await page.locator("#agent-name").getByText("Mira Lund").waitFor();
    const goals = page.locator(".goals");
    await goals.getByText("find the missing cat").waitFor();
    assert.match(await goals.locator(".goal").innerText(), /active[\s\S]*priority 5/);
    await page.locator(".plan .badge", { hasText: "goal: cat" }).first().waitFor();

    await page.getByLabel("Message").fill("Please give me the lantern.");
    await page.getByRole("button", { name: "Send" }).click();
    const actions = page.locator(".chat-log .reply:not(.pending) .game-actions");
    await actions.waitFor();
    assert.match(await actions.innerText(), /give_item \{"item":"lantern"\}/);

    await goals.getByRole("button", { name: "Mark done" }).click();
    await goals.locator(".goal.done").waitFor();
    assert.deepEqual(s.outside, []);
    assert.deepEqual(s.failed, []);
    assert.deepEqual(s.errors, []);
  },
);

browserTest(
  "playground: a tick step's game action that failed the check shows in the timeline",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page, server } = s;
    const send = sender(server.url);
    await send("POST", "/v1/worlds", {
      id: "shop",
      name: "Shop",
      startTime: "2023-02-13T08:30:00",
      clock: { mode: "manual" },
    });
    await send("PUT", "/v1/worlds/shop/environment", {
      areas: [
        { name: "Lantern Store", subAreas: [{ name: "shop", objects: [{ name: "counter" }] }] },
        { name: "Mira's cottage", subAreas: [{ name: "bedroom", objects: [{ name: "bed" }] }] },
      ],
    });
    await send("POST", "/v1/worlds/shop/agents", {
      id: "mira",
      name: "Mira Lund",
      description: "Mira keeps the lantern shop",
      home: "Mira's cottage",
      workplace: "Lantern Store",
    });
    // The offline model serves "customers", a name too long for this schema: the step's game
    // action fails the check.
    await send("PUT", "/v1/worlds/shop/actions", [{
      name: "serve_customer",
      description: "Serve the customer at the counter",
      parameters: {
        type: "object",
        properties: { customer: { type: "string", maxLength: 3 } },
        required: ["customer"],
      },
    }]);
    await send("POST", "/v1/worlds/shop/tick", { minutes: 10 });

    await page.goto(`${server.url}/?world=shop`);
    await page.getByRole("tab", { name: "Timeline" }).click();
    const dropped = page.locator('.event[data-type="action.dropped"]');
    await dropped.waitFor();
    assert.match(
      await dropped.innerText(),
      /Mira Lund chose a game action that was dropped: serve_customer[\s\S]*schema/,
    );
    assert.deepEqual(s.outside, []);
    assert.deepEqual(s.failed, []);
    assert.deepEqual(s.errors, []);
  },
);
