/**
 * The playground controls a newcomer looks for (issue 26), in headless Chromium against a real
 * server with the offline model: the clock mode and a confirmed delete in the worlds list, the
 * object picker grouped by area with a search box, and Reflect for the open agent.
 */
import assert from "node:assert/strict";
import { browserTest } from "../_helpers/browser.ts";
import { openPlayground, type PlaygroundSession } from "../_helpers/playground_session.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Calls the server's API directly, as a game would. */
async function call(s: PlaygroundSession, method: string, path: string, body?: unknown) {
  const res = await fetch(`${s.server.url}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
}

/** Creates the example town as world "town". */
async function exampleTown(s: PlaygroundSession): Promise<void> {
  const made = await call(s, "POST", "/v1/worlds", {
    id: "town",
    name: "Town",
    template: "smallville",
  });
  assert.equal(made.status, 201, JSON.stringify(made.body));
}

function assertClean(s: PlaygroundSession): void {
  assert.deepEqual(s.outside, [], "no request left the server");
  assert.deepEqual(s.failed, [], "no failed request");
  assert.deepEqual(s.errors, [], "no console errors");
}

browserTest(
  "playground: the worlds list shows each clock mode and deletes a world only once confirmed",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    for (const [id, mode] of [["harbour", "manual"], ["mill", "cron"]]) {
      const made = await call(s, "POST", "/v1/worlds", {
        id,
        name: id === "harbour" ? "Harbour" : "Mill",
        startTime: "2023-02-13T07:00:00",
        clock: { mode },
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    await page.goto(`${s.server.url}/`);
    const harbour = page.locator('.world-list li[data-world="harbour"]');
    const mill = page.locator('.world-list li[data-world="mill"]');
    assert.equal(await harbour.locator(".clock-mode").innerText(), "manual clock");
    assert.equal(await mill.locator(".clock-mode").innerText(), "every real minute (cron)");

    // Delete asks first; Cancel keeps the world.
    await mill.getByRole("button", { name: "Delete Mill" }).click();
    const confirm = mill.getByRole("group", { name: "Confirm deleting Mill" });
    await confirm.waitFor();
    assert.match(await confirm.innerText(), /cannot be undone/);
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    assert.equal((await call(s, "GET", "/v1/worlds/mill")).status, 200, "cancel kept it");

    // Confirmed, the world is gone from the list and from the server.
    await mill.getByRole("button", { name: "Delete Mill" }).click();
    await confirm.getByRole("button", { name: "Delete for good" }).click();
    await page.getByRole("status").filter({ hasText: "Deleted “Mill”." }).waitFor();
    await mill.waitFor({ state: "detached" });
    assert.equal((await call(s, "GET", "/v1/worlds/mill")).status, 404);
    await harbour.waitFor();
    await harbour.getByRole("button", { name: "Delete Harbour" }).click();
    await harbour.getByRole("button", { name: "Delete for good" }).click();
    await page.getByText("No worlds yet").waitFor();
    assertClean(s);
  },
);

browserTest(
  "playground: Edit world's object picker groups the town's objects by area and searches them",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    await exampleTown(s);
    const env = (await call(s, "GET", "/v1/worlds/town/environment")).body;
    const areas = (env.areas as Json[]).filter((a) =>
      a.subAreas.some((sub: Json) => sub.objects.length > 0)
    );
    const objects = areas.flatMap((a) => a.subAreas.flatMap((sub: Json) => sub.objects));
    assert.ok(objects.length > 100, `${objects.length} objects`);

    await page.goto(`${s.server.url}/?world=town`);
    await page.getByRole("tab", { name: "Edit world" }).click();
    const picker = page.getByLabel("Object", { exact: true });
    // One group per area, every object once, and a count that says so.
    const groups = await picker.locator("optgroup").evaluateAll((els) =>
      els.map((el) => el.getAttribute("label"))
    );
    assert.deepEqual(groups, areas.map((a) => a.name));
    assert.equal(await picker.locator("option").count(), objects.length);
    await page.getByText(`${objects.length} objects in ${areas.length} areas`).waitFor();

    // Searching narrows the list to the objects whose area, room or name has every word.
    await page.getByLabel("Find an object").fill("cafe coffee");
    const shown = await picker.locator("option").evaluateAll((els) =>
      els.map((el) => el.getAttribute("value") ?? "")
    );
    assert.ok(shown.length > 0 && shown.length < 10, shown.join(", "));
    assert.ok(shown.every((p) => /cafe/i.test(p) && /coffee/i.test(p)), shown.join(", "));
    assert.ok(shown.includes("Marigold Cafe:cafe:coffee machine"));
    assert.equal(await picker.inputValue(), shown[0], "the first match is chosen");
    await page.getByText(new RegExp(`^${shown.length} of ${objects.length} objects match`))
      .waitFor();

    // Choose one and set its state through the picker.
    await picker.selectOption("Marigold Cafe:cafe:coffee machine");
    await page.getByLabel("State", { exact: true }).fill("out of order");
    await page.getByRole("button", { name: "Set state" }).click();
    await page.getByText("is now “out of order”").waitFor();
    const after = (await call(s, "GET", "/v1/worlds/town/environment")).body;
    const machine = after.areas.find((a: Json) => a.name === "Marigold Cafe").subAreas
      .find((sub: Json) => sub.name === "cafe").objects
      .find((o: Json) => o.name === "coffee machine");
    assert.equal(machine.state, "out of order");

    // Nothing matches: an empty list that cannot be submitted; clearing brings everything back.
    await page.getByLabel("Find an object").fill("zeppelin hangar");
    await page.getByText(`0 of ${objects.length} objects match`).waitFor();
    assert.equal(await page.getByRole("button", { name: "Set state" }).isDisabled(), true);
    await page.getByLabel("Find an object").fill("");
    assert.equal(await picker.locator("option").count(), objects.length);
    assertClean(s);
  },
);

browserTest(
  "playground: Reflect asks the open agent to reflect and shows its questions and new reflections",
  async (browser) => {
    await using s = await openPlayground(browser);
    const { page } = s;
    await exampleTown(s);
    const reflectionsOf = async () =>
      (await call(s, "GET", "/v1/worlds/town/agents/ayesha/memories?kind=reflection&limit=100"))
        .body.memories as Json[];
    assert.equal((await reflectionsOf()).length, 0, "no reflection before");

    await page.goto(`${s.server.url}/?world=town&agent=ayesha`);
    await page.locator("#agent-name").getByText("Ayesha Rahman").waitFor();
    const section = page.locator("section[aria-labelledby='agent-reflect']");
    await section.getByRole("button", { name: "Reflect", exact: true }).click();
    const stored = section.locator(".reflect-result .memory.reflection");
    await stored.first().waitFor();
    assert.ok(await section.locator(".reflect-questions li").count() > 0, "its questions");

    // What the page shows is what the server stored.
    const saved = await reflectionsOf();
    const shownIds = await stored.evaluateAll((els) => els.map((el) => el.dataset.memory));
    assert.deepEqual(shownIds.sort(), saved.map((m) => m.id).sort());
    // Each opens into its evidence, and the memory stream below has them too.
    await stored.first().getByRole("button", { name: /^Evidence/ }).click();
    await stored.first().locator(".tree li[data-memory]").first().waitFor();
    await page.locator("section[aria-labelledby='agent-memories'] .memory.reflection").first()
      .waitFor();
    assertClean(s);
  },
);
