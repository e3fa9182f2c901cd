/**
 * The prompt cache's accounting end to end: the fake OpenAI server reports
 * `usage.prompt_tokens_details.cached_tokens` when a prompt repeats an earlier prompt's prefix,
 * the OpenAI client reads it, and `GET …/usage` shows it per operation and agent.
 */
import assert from "node:assert/strict";
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import { fakeModelEnv } from "../_helpers/fake_model.ts";
import { call, importArchive } from "../_helpers/http_call.ts";
import { overHttp, withServer } from "../_helpers/in_process_server.ts";

Deno.test("GET …/usage counts the cached prompt tokens the provider reported, per operation and agent", async () => {
  await using fake = await startFakeOpenAi();
  await withServer({ env: fakeModelEnv(fake) }, async (running) => {
    const server = overHttp(running.url);
    await call(server, "POST", "/v1/worlds", {
      id: "town",
      name: "Town",
      startTime: "2023-02-13T07:00:00",
    });
    for (const id of ["klaus", "maria"]) {
      const made = await call(server, "POST", "/v1/worlds/town/agents", {
        id,
        name: id === "klaus" ? "Klaus Mueller" : "Maria Lopez",
        description: `${id} is a student at Oak Hill College`,
      });
      assert.equal(made.status, 201, JSON.stringify(made.body));
    }
    const before = fake.promptCacheStats();
    for (const text of ["Klaus is eating breakfast", "Klaus is reading about gentrification"]) {
      const perceived = await call(server, "POST", "/v1/worlds/town/agents/klaus/perceive", {
        observations: [{ text }],
      });
      assert.equal(perceived.status, 200, JSON.stringify(perceived.body));
    }
    const stats = fake.promptCacheStats();
    assert.ok(stats.cachedTokens > before.cachedTokens, "Klaus's second call repeats a prefix");
    assert.ok(stats.cachedTokens < stats.promptTokens);

    const usage = (await call(server, "GET", "/v1/worlds/town/usage")).body;
    const chats = fake.requests.filter((r) => r.path === "/v1/chat/completions");
    assert.ok(chats.every((r) => r.kind === "importance"), "every call rated importance");
    assert.equal(usage.total.cachedPromptTokens, stats.cachedTokens, "every cached token booked");
    assert.equal(usage.byOperation.importance.cachedPromptTokens, stats.cachedTokens);
    assert.equal(
      usage.byAgent.klaus.cachedPromptTokens + usage.byAgent.maria.cachedPromptTokens,
      stats.cachedTokens,
    );
    assert.ok(usage.byAgent.klaus.cachedPromptTokens >= stats.cachedTokens - before.cachedTokens);
    assert.equal(usage.byOperation.importance.promptTokens, stats.promptTokens, "the same calls");

    const doc = (await call(server, "GET", "/openapi.json")).body;
    assert.match(
      doc.components.schemas.Usage.properties.cachedPromptTokens.description,
      /prompt cache/,
      "the OpenAPI document describes it",
    );

    // A world's export carries the totals; its import (a fork) books them again.
    const exported = await (await server.request("/v1/worlds/town/export")).text();
    const fork = await importArchive(server, exported, "?id=town-copy");
    assert.equal(fork.status, 201, JSON.stringify(fork.body));
    const copied = (await call(server, "GET", "/v1/worlds/town-copy/usage")).body;
    assert.deepEqual(copied.total, usage.total);
    assert.deepEqual(copied.byAgent, usage.byAgent);
  });
});
