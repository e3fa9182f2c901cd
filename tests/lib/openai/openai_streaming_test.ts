/** @module OpenAiLanguageModel.stream() over real HTTP against the fake server's SSE stream. */
import assert from "node:assert/strict";
import { z } from "zod";
import { startFakeOpenAi } from "../../../dev/fake_openai_server.ts";
import { OpenAiLanguageModel } from "../../../lib/openai/openai_language_model.ts";
import { OfflineLanguageModel } from "../../../lib/offline/offline_language_model.ts";
import { ModelUnavailableError } from "../../../src/domain/errors.ts";
import type { UsageRecord } from "../../../src/domain/usage.ts";
import type { Prompt } from "../../../src/ports/language_model.ts";

const Reply = z.object({ reply: z.string(), importance: z.number().int().min(1).max(10) });
const prompt: Prompt<z.infer<typeof Reply>> = {
  kind: "respond",
  tier: "main",
  messages: [
    { role: "system", content: "[prompt:respond]\nAnswer in character." },
    { role: "user", content: "How is the party planning going?" },
  ],
  schema: Reply,
  input: {},
};
const attribution = { worldId: "w", agentId: "isabella", operation: "respond" };
const ANSWER = { reply: "It is coming along nicely, thank you for asking!", importance: 3 };

async function withModel(
  run: (
    fake: Awaited<ReturnType<typeof startFakeOpenAi>>,
    model: OpenAiLanguageModel,
    usage: UsageRecord[],
  ) => Promise<void>,
) {
  await using fake = await startFakeOpenAi();
  const usage: UsageRecord[] = [];
  const model = new OpenAiLanguageModel({
    apiKey: "sk-test",
    baseURL: fake.url,
    mainModel: "test-main",
    fastModel: "test-fast",
    maxRetries: 2,
    sleep: () => Promise.resolve(),
    onUsage: (r) => {
      usage.push(r);
    },
  });
  await run(fake, model, usage);
}

Deno.test("OpenAiLanguageModel.stream() hands on each delta as it arrives and validates the whole", async () => {
  await withModel(async (fake, model, usage) => {
    fake.script("respond", { json: ANSWER, usage: { promptTokens: 40, completionTokens: 17 } });
    const pieces: string[] = [];
    const completion = await model.stream(prompt, attribution, { onText: (t) => pieces.push(t) });
    assert.deepEqual(completion.value, ANSWER);
    assert.ok(pieces.length > 5, `streamed in pieces (${pieces.length})`);
    assert.equal(pieces.join(""), JSON.stringify(ANSWER));
    assert.deepEqual(completion.usage, { calls: 1, promptTokens: 40, completionTokens: 17 });
    assert.equal(usage.length, 1);
    assert.equal(usage[0].estimated, false);
    const body = fake.requests[0].body as Record<string, unknown>;
    assert.equal(body.stream, true);
    assert.deepEqual(body.stream_options, { include_usage: true });
  });
});

Deno.test("OpenAiLanguageModel.stream() retries opening, repairs a malformed answer unstreamed", async () => {
  await withModel(async (fake, model, usage) => {
    fake.script("respond", { status: 503 }, { content: '{"reply": 5' }, { json: ANSWER });
    const pieces: string[] = [];
    const completion = await model.stream(prompt, attribution, { onText: (t) => pieces.push(t) });
    assert.deepEqual(completion.value, ANSWER);
    assert.equal(pieces.join(""), '{"reply": 5', "only the first answer was streamed");
    assert.deepEqual(fake.requests.map((r) => (r.body as { stream?: boolean }).stream ?? false), [
      true,
      true,
      false,
    ]);
    assert.equal(usage.length, 2);
  });
});

Deno.test("OpenAiLanguageModel.stream() fails with model_unavailable when the stream breaks", async () => {
  await withModel(async (fake, model, usage) => {
    fake.script("respond", { json: ANSWER, breakAfter: 3 });
    const pieces: string[] = [];
    await assert.rejects(
      model.stream(prompt, attribution, { onText: (t) => pieces.push(t) }),
      (err) => err instanceof ModelUnavailableError && err.code === "model_unavailable",
    );
    assert.ok(pieces.length > 0 && pieces.length < 4);
    assert.equal(fake.requests.length, 1, "a stream already handed on is not retried");
    assert.equal(usage.length, 0);
  });
});

Deno.test("OfflineLanguageModel.stream() sends its answer's JSON in pieces", async () => {
  const model = new OfflineLanguageModel({ responders: { respond: () => ANSWER } });
  const pieces: string[] = [];
  const completion = await model.stream(prompt, attribution, { onText: (t) => pieces.push(t) });
  assert.deepEqual(completion.value, ANSWER);
  assert.ok(pieces.length > 3);
  assert.deepEqual(JSON.parse(pieces.join("")), ANSWER);
});
