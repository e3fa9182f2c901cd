/** @module Tests of OpenAiLanguageModel over real HTTP against the fake OpenAI server. */
import assert from "node:assert/strict";
import { z } from "zod";
import { startFakeOpenAi } from "../../../dev/fake_openai_server.ts";
import {
  OpenAiLanguageModel,
  type OpenAiLanguageModelOptions,
} from "../../../lib/openai/openai_language_model.ts";
import { countChatTokens, countTextTokens } from "../../../lib/openai/token_count.ts";
import { type FakeOpenAiRun, withFakeOpenAi } from "../../_helpers/fake_model.ts";
import { ConfigError, ModelUnavailableError } from "../../../src/domain/errors.ts";
import type { Prompt } from "../../../src/ports/language_model.ts";
import { rejectionOf } from "../../_helpers/rejection.ts";

const API_KEY = "sk-test-very-secret-key-123";
const SECRET_OBSERVATION = "Klaus whispered the vault code 4471 to Maria";
const Scores = z.object({ scores: z.array(z.number().int().min(1).max(10)) });

function importancePrompt(tier: "main" | "fast" = "fast"): Prompt<z.infer<typeof Scores>> {
  return {
    kind: "importance",
    tier,
    messages: [
      { role: "system", content: "[prompt:importance]\nRate each observation from 1 to 10." },
      { role: "user", content: `<observations>\n1. ${SECRET_OBSERVATION}\n</observations>` },
    ],
    schema: Scores,
    input: { observations: [SECRET_OBSERVATION] },
  };
}

type Harness = Omit<FakeOpenAiRun<OpenAiLanguageModel>, "client"> & {
  model: OpenAiLanguageModel;
};

function withModel(
  options: Partial<OpenAiLanguageModelOptions>,
  run: (harness: Harness) => Promise<void>,
): Promise<void> {
  return withFakeOpenAi(
    (on) =>
      new OpenAiLanguageModel({
        apiKey: API_KEY,
        ...on,
        mainModel: "test-main",
        fastModel: "test-fast",
        random: () => 0,
        ...options,
      }),
    ({ client, ...rest }) => run({ ...rest, model: client }),
  );
}

function assertNoSecrets(error: ModelUnavailableError): void {
  const visible = `${error.message} ${JSON.stringify(error.details)}`;
  assert.ok(!visible.includes(API_KEY), "the API key leaked");
  assert.ok(!visible.includes("vault code"), "the prompt text leaked");
}

const attribution = { worldId: "w-llm", agentId: "klaus", operation: "importance" };

Deno.test("OpenAiLanguageModel.info reports the mode and both tiers' models", async () => {
  await withModel({}, ({ model }) => {
    assert.deepEqual(model.info, { mode: "openai", main: "test-main", fast: "test-fast" });
    return Promise.resolve();
  });
});

Deno.test("OpenAiLanguageModel constructor rejects an empty API key with a ConfigError", () => {
  assert.throws(
    () => new OpenAiLanguageModel({ apiKey: " ", mainModel: "a", fastModel: "b" }),
    ConfigError,
  );
});

Deno.test("OpenAiLanguageModel.complete() returns the validated value with the server's usage", async () => {
  await withModel({}, async ({ fake, model, records }) => {
    fake.script("importance", {
      json: { scores: [7] },
      usage: { promptTokens: 11, completionTokens: 5 },
    });
    const completion = await model.complete(importancePrompt("fast"), attribution);

    assert.deepEqual(completion, {
      value: { scores: [7] },
      usage: { calls: 1, promptTokens: 11, completionTokens: 5 },
      model: "test-fast",
    });
    assert.equal(fake.requests.length, 1);
    const request = fake.requests[0];
    assert.equal(request.model, "test-fast");
    assert.equal(request.kind, "importance");
    const format = (request.body as { response_format: { type: string; json_schema: unknown } })
      .response_format;
    assert.equal(format.type, "json_schema");
    assert.equal((format.json_schema as { strict: boolean }).strict, true);
    assert.equal(request.headers.authorization, undefined);
    assert.deepEqual(records, [{
      ...attribution,
      calls: 1,
      promptTokens: 11,
      completionTokens: 5,
      model: "test-fast",
      estimated: false,
    }]);
  });
});

Deno.test("OpenAiLanguageModel.complete() and stream() report the provider's cached prompt tokens", async () => {
  await withModel({}, async ({ fake, model, records }) => {
    fake.script(
      "importance",
      {
        json: { scores: [7] },
        usage: { promptTokens: 2000, completionTokens: 5, cachedTokens: 1152 },
      },
      {
        json: { scores: [6] },
        usage: { promptTokens: 2000, completionTokens: 5, cachedTokens: 0 },
      },
      {
        json: { scores: [5] },
        usage: { promptTokens: 2000, completionTokens: 5, cachedTokens: 640 },
      },
    );
    const cached = await model.complete(importancePrompt(), attribution);
    assert.equal(cached.usage.cachedPromptTokens, 1152);
    const none = await model.complete(importancePrompt(), attribution);
    assert.equal(none.usage.cachedPromptTokens, undefined, "none reported: none recorded");
    const streamed = await model.stream(importancePrompt(), attribution, { onText: () => {} });
    assert.equal(streamed.usage.cachedPromptTokens, 640);
    assert.deepEqual(records.map((r) => r.cachedPromptTokens), [1152, undefined, 640]);
  });
});

Deno.test("OpenAiLanguageModel.complete() sends main-tier prompts to the main model", async () => {
  await withModel({}, async ({ fake, model }) => {
    const completion = await model.complete(importancePrompt("main"), attribution);
    assert.equal(completion.model, "test-main");
    assert.equal(fake.requests[0].model, "test-main");
    assert.ok(Scores.safeParse(completion.value).success);
  });
});

Deno.test("OpenAiLanguageModel.complete() estimates usage with the tokenizer when the server reports none", async () => {
  await withModel({}, async ({ fake, model, records }) => {
    fake.script("importance", { json: { scores: [2] }, usage: false });
    const prompt = importancePrompt();
    const completion = await model.complete(prompt, attribution);

    const expected = {
      calls: 1,
      promptTokens: countChatTokens(prompt.messages),
      completionTokens: countTextTokens(JSON.stringify({ scores: [2] })),
    };
    assert.deepEqual(completion.usage, expected);
    assert.ok(expected.promptTokens > 20);
    assert.equal(records.length, 1);
    assert.equal(records[0].estimated, true);
    assert.equal(records[0].promptTokens, expected.promptTokens);
  });
});

Deno.test("OpenAiLanguageModel.complete() retries after a 429, waiting as retry-after asks", async () => {
  await withModel({}, async ({ fake, model, sleeps }) => {
    fake.script("importance", { status: 429, retryAfter: 2 }, { json: { scores: [4] } });
    const completion = await model.complete(importancePrompt(), attribution);
    assert.deepEqual(completion.value, { scores: [4] });
    assert.equal(completion.usage.calls, 1);
    assert.equal(fake.requests.length, 2);
    assert.deepEqual(sleeps, [2000]);
  });
});

Deno.test("OpenAiLanguageModel.complete() caps a long retry-after", async () => {
  await withModel({}, async ({ fake, model, sleeps }) => {
    fake.script("importance", { status: 429, retryAfter: 3600 }, { json: { scores: [4] } });
    await model.complete(importancePrompt(), attribution);
    assert.deepEqual(sleeps, [30_000]);
  });
});

Deno.test("OpenAiLanguageModel.complete() retries 5xx with exponential backoff", async () => {
  await withModel({}, async ({ fake, model, sleeps, records }) => {
    fake.script("importance", { status: 500 }, { status: 503 }, { json: { scores: [5] } });
    const completion = await model.complete(importancePrompt(), attribution);
    assert.deepEqual(completion.value, { scores: [5] });
    assert.equal(fake.requests.length, 3);
    // random() = 0: half of 500 ms, then half of 1000 ms.
    assert.deepEqual(sleeps, [250, 500]);
    assert.equal(records.length, 1, "failed attempts return no completion and are not calls");
  });
});

Deno.test("OpenAiLanguageModel.complete() throws rate_limited once retries are exhausted", async () => {
  await withModel({ maxRetries: 2 }, async ({ fake, model }) => {
    fake.script("importance", { status: 429 }, { status: 429 }, { status: 429 });
    const error = await rejectionOf(
      model.complete(importancePrompt(), attribution),
      ModelUnavailableError,
    );
    assert.equal(error.code, "rate_limited");
    assert.equal(fake.requests.length, 3);
    assert.match(error.message, /OpenAI-compatible model at "127\.0\.0\.1:\d+"/);
    assertNoSecrets(error);
  });
});

Deno.test("OpenAiLanguageModel.complete() does not retry a 400, 401 or 404", async (t) => {
  for (const status of [400, 401, 404]) {
    await t.step(`HTTP ${status}`, async () => {
      await withModel({}, async ({ fake, model, sleeps }) => {
        fake.script("importance", { status });
        const error = await rejectionOf(
          model.complete(importancePrompt(), attribution),
          ModelUnavailableError,
        );
        assert.equal(error.code, "model_unavailable");
        assert.equal(fake.requests.length, 1);
        assert.deepEqual(sleeps, []);
        assertNoSecrets(error);
      });
    });
  }
});

Deno.test("OpenAiLanguageModel.complete() throws model_timeout when the server hangs", async () => {
  await withModel({ timeoutMs: 200, maxRetries: 1 }, async ({ fake, model, records }) => {
    fake.script("importance", { hang: true }, { hang: true });
    const started = performance.now();
    const error = await rejectionOf(
      model.complete(importancePrompt(), attribution),
      ModelUnavailableError,
    );
    assert.equal(error.code, "model_timeout");
    assert.equal(fake.requests.length, 2);
    assert.ok(performance.now() - started >= 380, "each attempt waits for its timeout");
    assert.match(error.message, /did not answer within 200 ms \(2 attempts\)/);
    assert.deepEqual(records, []);
    assertNoSecrets(error);
  });
});

Deno.test("OpenAiLanguageModel.complete() throws model_unavailable when nothing listens", async () => {
  const fake = await startFakeOpenAi();
  const url = fake.url;
  await fake.close();
  const sleeps: number[] = [];
  const model = new OpenAiLanguageModel({
    apiKey: API_KEY,
    baseURL: url,
    mainModel: "m",
    fastModel: "f",
    maxRetries: 2,
    sleep: (ms) => {
      sleeps.push(ms);
      return Promise.resolve();
    },
  });
  const error = await rejectionOf(
    model.complete(importancePrompt(), attribution),
    ModelUnavailableError,
  );
  assert.equal(error.code, "model_unavailable");
  assert.match(error.message, /cannot connect to OpenAI-compatible model at/);
  assert.equal(sleeps.length, 2);
  assertNoSecrets(error);
});

Deno.test("OpenAiLanguageModel.complete() repairs malformed JSON once and counts both calls", async () => {
  await withModel({}, async ({ fake, model, records }) => {
    fake.script(
      "importance",
      { content: "{scores: [3", usage: { promptTokens: 10, completionTokens: 4 } },
      { json: { scores: [3] }, usage: { promptTokens: 30, completionTokens: 6 } },
    );
    const completion = await model.complete(importancePrompt(), attribution);

    assert.deepEqual(completion.value, { scores: [3] });
    assert.deepEqual(completion.usage, { calls: 2, promptTokens: 40, completionTokens: 10 });
    assert.equal(records.length, 2);
    assert.ok(records.every((r) => r.operation === "importance" && r.worldId === "w-llm"));
    const repair = fake.requests[1].messages ?? [];
    assert.equal(repair.at(-2)?.role, "assistant");
    assert.equal(repair.at(-2)?.content, "{scores: [3");
    assert.equal(repair.at(-1)?.role, "user");
    assert.match(repair.at(-1)?.content ?? "", /not valid JSON/);
    assert.equal(fake.requests[1].kind, "importance");
  });
});

Deno.test("OpenAiLanguageModel.complete() puts the validation problems in the repair request", async () => {
  await withModel({}, async ({ fake, model }) => {
    fake.script("importance", { json: { scores: ["high"] } }, { json: { scores: [9] } });
    const completion = await model.complete(importancePrompt(), attribution);
    assert.deepEqual(completion.value, { scores: [9] });
    const problem = fake.requests[1].messages?.at(-1)?.content ?? "";
    assert.match(problem, /"scores\.0"/);
    assert.match(problem, /expected number/);
  });
});

Deno.test("OpenAiLanguageModel.complete() throws model_invalid_output when the repair fails too", async () => {
  await withModel({}, async ({ fake, model, records }) => {
    fake.script("importance", { content: "no idea" }, { json: { scores: [11] } });
    const error = await rejectionOf(
      model.complete(importancePrompt(), attribution),
      ModelUnavailableError,
    );
    assert.equal(error.code, "model_invalid_output");
    assert.equal(fake.requests.length, 2);
    assert.equal(records.length, 2);
    const details = error.details as { kind: string; issues: { path: string; code: string }[] };
    assert.equal(details.kind, "importance");
    assert.deepEqual(details.issues.map((i) => [i.path, i.code]), [["scores.0", "too_big"]]);
    assertNoSecrets(error);
  });
});

Deno.test("OpenAiLanguageModel.complete() accepts an answer inside a ```json fence", async () => {
  await withModel({}, async ({ fake, model }) => {
    fake.script("importance", { content: 'Here:\n```json\n{"scores": [8]}\n```' });
    const completion = await model.complete(importancePrompt(), attribution);
    assert.deepEqual(completion.value, { scores: [8] });
    assert.equal(fake.requests.length, 1);
  });
});

Deno.test("OpenAiLanguageModel.complete() drops control characters from the answer's text", async () => {
  await withModel({}, async ({ fake, model }) => {
    const schema = z.object({ line: z.string() });
    fake.script("line", { json: { line: "Hello\u0000 there\u001b[31m\tfriend\n" } });
    const prompt: Prompt<z.infer<typeof schema>> = {
      kind: "line",
      tier: "main",
      messages: [{ role: "system", content: "[prompt:line]\nSay a line." }],
      schema,
      input: {},
    };
    const completion = await model.complete(prompt, attribution);
    // Stored and exported, it must import again: tab and line breaks stay, NUL and ESC go.
    assert.equal(completion.value.line, "Hello there[31m\tfriend\n");
  });
});

Deno.test("OpenAiLanguageModel.complete() falls back to JSON mode for schemas strict outputs refuse", async () => {
  await withModel({}, async ({ fake, model }) => {
    const schema = z.array(z.object({ name: z.string(), mood: z.enum(["calm", "tense"]) })).min(2);
    const prompt: Prompt<z.infer<typeof schema>> = {
      kind: "moods",
      tier: "main",
      messages: [
        { role: "system", content: "[prompt:moods]\nList moods." },
        { role: "user", content: "Isabella and Klaus" },
      ],
      schema,
      input: {},
    };
    const completion = await model.complete(prompt, attribution);
    assert.equal(completion.value.length, 2);
    assert.equal(completion.value[0].mood, "calm");

    const request = fake.requests[0];
    assert.deepEqual((request.body as { response_format: unknown }).response_format, {
      type: "json_object",
    });
    const system = request.messages?.[0].content ?? "";
    assert.ok(system.startsWith("[prompt:moods]\n"), "the kind line stays first");
    assert.match(system, /```json\n\{.*"minItems":2.*\}\n```/);
  });
});

Deno.test("OpenAiLanguageModel.complete() accepts null for optional fields sent as nullable", async () => {
  await withModel({}, async ({ fake, model }) => {
    const schema = z.object({ say: z.string(), emoji: z.string().nullable().optional() });
    fake.script("line", { json: { say: "Hello", emoji: null } });
    const completion = await model.complete({
      kind: "line",
      tier: "main",
      messages: [{ role: "system", content: "[prompt:line]\nSpeak." }],
      schema,
      input: {},
    }, attribution);
    assert.deepEqual(completion.value, { say: "Hello", emoji: null });
    const format = (fake.requests[0].body as { response_format: { type: string } }).response_format;
    assert.equal(format.type, "json_schema");
  });
});
