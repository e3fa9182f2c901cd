/** @module Tests of the fake OpenAI-compatible server, over real HTTP with plain fetch. */
import assert from "node:assert/strict";
import { z } from "zod";
import { zodResponseFormat } from "openai/helpers/zod";
import { fakeEmbedding, startFakeOpenAi } from "../../dev/fake_openai_server.ts";

const AUTH = { authorization: "Bearer sk-fake-test", "content-type": "application/json" };

interface ChatBody {
  choices: { message: { content: string } }[];
  usage?: { prompt_tokens: number; completion_tokens: number };
}

function chat(
  url: string,
  kind: string | undefined,
  extra: Record<string, unknown> = {},
): Promise<Response> {
  const system = kind === undefined ? "Be helpful." : `[prompt:${kind}]\nBe helpful.`;
  return fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: AUTH,
    body: JSON.stringify({
      model: "fake-main",
      messages: [
        { role: "system", content: system },
        { role: "user", content: "Isabella is planning a party at Hobbs Cafe" },
      ],
      ...extra,
    }),
  });
}

async function content(response: Response): Promise<string> {
  const body = await response.json() as ChatBody;
  return body.choices[0].message.content;
}

Deno.test("startFakeOpenAi() serves a /v1 base URL that lists models", async () => {
  const fake = await startFakeOpenAi({ models: ["a", "b"] });
  try {
    assert.match(fake.url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await fetch(`${fake.url}/models`);
    const body = await response.json() as { data: { id: string }[] };
    assert.deepEqual(body.data.map((m) => m.id), ["a", "b"]);
    const missing = await fetch(`${fake.url}/nothing`, { method: "POST", headers: AUTH });
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await fake.close();
  }
});

Deno.test("startFakeOpenAi() records requests with their prompt kind and without the key", async () => {
  const fake = await startFakeOpenAi();
  try {
    await (await chat(fake.url, "importance")).body?.cancel();
    await (await chat(fake.url, undefined)).body?.cancel();
    assert.equal(fake.requests.length, 2);
    const [tagged, untagged] = fake.requests;
    assert.equal(tagged.path, "/v1/chat/completions");
    assert.equal(tagged.model, "fake-main");
    assert.equal(tagged.kind, "importance");
    assert.equal(tagged.messages?.[1].content, "Isabella is planning a party at Hobbs Cafe");
    assert.equal(tagged.headers.authorization, undefined);
    assert.equal(tagged.headers["content-type"], "application/json");
    assert.equal(untagged.kind, "default");
  } finally {
    await fake.close();
  }
});

Deno.test("startFakeOpenAi() answers 401 without a bearer token", async () => {
  const fake = await startFakeOpenAi();
  try {
    const response = await fetch(`${fake.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", messages: [] }),
    });
    assert.equal(response.status, 401);
    await response.body?.cancel();
  } finally {
    await fake.close();
  }
});

Deno.test("startFakeOpenAi() answers unscripted requests with a value valid for the JSON schema", async () => {
  const fake = await startFakeOpenAi();
  try {
    const schema = z.object({
      plan: z.array(z.object({ hour: z.number().int().min(0).max(23), what: z.string() })).min(3),
      mood: z.enum(["calm", "busy"]),
      note: z.string().nullable().optional(),
    });
    const strict = await chat(fake.url, "plan", {
      response_format: zodResponseFormat(schema, "plan"),
    });
    assert.ok(schema.safeParse(JSON.parse(await content(strict))).success);

    const jsonMode = await chat(fake.url, "plan", {
      response_format: { type: "json_object" },
      messages: [{
        role: "system",
        content: `[prompt:plan]\nAnswer with JSON:\n\`\`\`json\n${
          JSON.stringify(z.toJSONSchema(schema))
        }\n\`\`\``,
      }],
    });
    assert.ok(schema.safeParse(JSON.parse(await content(jsonMode))).success);
  } finally {
    await fake.close();
  }
});

Deno.test("startFakeOpenAi() plays scripted answers in order, per prompt kind", async () => {
  const fake = await startFakeOpenAi();
  try {
    fake.script("importance", { json: { scores: [9] } }, { content: "not json" });
    fake.script("emoji", { json: { emoji: "☕" } });
    assert.deepEqual(fake.pending(), { importance: 2, emoji: 1 });

    assert.equal(await content(await chat(fake.url, "emoji")), '{"emoji":"☕"}');
    assert.equal(await content(await chat(fake.url, "importance")), '{"scores":[9]}');
    assert.equal(await content(await chat(fake.url, "importance")), "not json");
    assert.deepEqual(fake.pending(), {});
  } finally {
    await fake.close();
  }
});

Deno.test("startFakeOpenAi() scripts errors with retry-after and usage modifiers", async () => {
  const fake = await startFakeOpenAi();
  try {
    fake.script(
      "x",
      { status: 429, retryAfter: 3 },
      { status: 503 },
      { json: {}, usage: false },
      { json: {}, usage: { promptTokens: 12, completionTokens: 3 } },
      { usage: false },
    );
    const limited = await chat(fake.url, "x");
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "3");
    await limited.body?.cancel();
    const down = await chat(fake.url, "x");
    assert.equal(down.status, 503);
    await down.body?.cancel();

    const noUsage = await (await chat(fake.url, "x")).json() as ChatBody;
    assert.equal(noUsage.usage, undefined);
    const fixed = await (await chat(fake.url, "x")).json() as ChatBody;
    assert.deepEqual(
      [fixed.usage?.prompt_tokens, fixed.usage?.completion_tokens],
      [12, 3],
    );
    const generated = await (await chat(fake.url, "x")).json() as ChatBody;
    assert.equal(generated.usage, undefined);
    assert.ok(generated.choices[0].message.content.length > 0);
  } finally {
    await fake.close();
  }
});

Deno.test("startFakeOpenAi() holds a hanging request until the client gives up", async () => {
  const fake = await startFakeOpenAi();
  try {
    fake.script("slow", { hang: true });
    await assert.rejects(
      fetch(`${fake.url}/chat/completions`, {
        method: "POST",
        headers: AUTH,
        body: JSON.stringify({
          model: "m",
          messages: [{ role: "system", content: "[prompt:slow]" }],
        }),
        signal: AbortSignal.timeout(100),
      }),
    );
    assert.equal(fake.requests.length, 1);
  } finally {
    await fake.close();
  }
});

Deno.test("startFakeOpenAi() waits latencyMs before answering", async () => {
  const fake = await startFakeOpenAi({ latencyMs: 60 });
  try {
    const started = performance.now();
    await (await chat(fake.url, "any")).body?.cancel();
    assert.ok(performance.now() - started >= 55);
  } finally {
    await fake.close();
  }
});

Deno.test("startFakeOpenAi() embeds deterministically in float and base64, honouring dimensions", async () => {
  const fake = await startFakeOpenAi();
  try {
    const embed = async (body: Record<string, unknown>) => {
      const response = await fetch(`${fake.url}/embeddings`, {
        method: "POST",
        headers: AUTH,
        body: JSON.stringify({ model: "fake-embedding", ...body }),
      });
      return await response.json() as {
        data: { index: number; embedding: number[] | string }[];
        usage?: { prompt_tokens: number };
      };
    };
    const floats = await embed({
      input: ["hello", "world"],
      dimensions: 8,
      encoding_format: "float",
    });
    assert.deepEqual(floats.data.map((d) => d.index), [0, 1]);
    assert.deepEqual(floats.data[0].embedding, Array.from(fakeEmbedding("hello", 8)));
    assert.equal(floats.usage?.prompt_tokens, 4);

    const encoded = await embed({ input: "hello", dimensions: 8, encoding_format: "base64" });
    const bytes = Uint8Array.from(
      atob(encoded.data[0].embedding as string),
      (c) => c.charCodeAt(0),
    );
    assert.deepEqual(new Float32Array(bytes.buffer), fakeEmbedding("hello", 8));

    const byDefault = await embed({ input: "hello", encoding_format: "float" });
    assert.equal((byDefault.data[0].embedding as number[]).length, 1536);

    fake.scriptEmbeddings({ dimensions: 3, usage: false });
    const forced = await embed({ input: "hello", dimensions: 8, encoding_format: "float" });
    assert.equal((forced.data[0].embedding as number[]).length, 3);
    assert.equal(forced.usage, undefined);
    assert.deepEqual(fake.requests.at(-1)?.input, ["hello"]);
  } finally {
    await fake.close();
  }
});
