/**
 * Talk in the playground streams the reply: a server on the OpenAI path whose model (the fake
 * server) writes slowly, and the page shows the first words while the rest is still coming.
 */
import assert from "node:assert/strict";
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import { browserTest } from "../_helpers/browser.ts";
import { fakeModelEnv } from "../_helpers/fake_model.ts";
import { openPlayground } from "../_helpers/playground_session.ts";

const REPLY = "I am restoring an old tower clock for the town hall, and it is slow work.";

browserTest(
  "playground: Talk shows the reply's words as the model writes them",
  async (browser) => {
    await using fake = await startFakeOpenAi();
    await using s = await openPlayground(browser, {
      env: fakeModelEnv(fake),
    });
    const { page, server } = s;
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 201, await res.text());
    };
    await post("/v1/worlds", { id: "town", name: "Town", startTime: "2023-02-13T07:00:00" });
    await post("/v1/worlds/town/agents", {
      id: "wren",
      name: "Wren Calloway",
      description: "Wren Calloway is a clockmaker",
    });
    await page.goto(`${server.url}/?world=town&agent=wren`);
    await page.locator("#agent-name").getByText("Wren Calloway").waitFor();

    // About 2.5 s of writing: 8 characters every 100 ms.
    fake.script("respond", {
      json: {
        reply: `Wren Calloway: ${REPLY}`,
        thoughts: null,
        actions: null,
        bounded: false,
        importance: 3,
        replan: false,
      },
      chunkMs: 100,
    });
    await page.getByLabel("Message").fill("What are you working on?");
    await page.getByRole("button", { name: "Send" }).click();
    const streaming = page.locator(".chat-log .reply.pending .reply-text");
    await streaming.getByText(/^I am/).waitFor();
    const partial = await streaming.innerText();
    assert.ok(partial.length < REPLY.length && REPLY.startsWith(partial), partial);

    const reply = page.locator(".chat-log .reply:not(.pending)");
    await reply.waitFor();
    assert.equal(await reply.locator(".reply-text").innerText(), REPLY);
    assert.match(await reply.locator("summary").innerText(), /memories .* tokens/);
    const sent = fake.requests.filter((r) => r.kind === "respond");
    assert.equal((sent.at(-1)!.body as { stream?: boolean }).stream, true);
    assert.deepEqual(s.outside, []);
    assert.deepEqual(s.failed, []);
    assert.deepEqual(s.errors, []);
  },
);
