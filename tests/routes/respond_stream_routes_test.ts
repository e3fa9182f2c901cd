import assert from "node:assert/strict";
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import { OpenAiLanguageModel } from "../../lib/openai/openai_language_model.ts";
import { startBackends } from "../_helpers/backends.ts";
import { type App, sanitizersFor, withBackendApp } from "../_helpers/backend_app.ts";
import { call as callApp } from "../_helpers/http_call.ts";
import { respondAnswer } from "../_helpers/fake_model.ts";
import { type SseMessage, sseMessages } from "../_helpers/sse.ts";

const { backends, close } = await startBackends();
const W = "/v1/worlds/inn";
const A = `${W}/agents/mira`;

/** Every SSE frame of a finished stream. */
async function frames(res: Response): Promise<SseMessage[]> {
  return sseMessages(await res.text());
}

async function setUp(app: App) {
  const call = (method: string, path: string, body?: unknown) => callApp(app, method, path, body);
  assert.equal(
    (await call("POST", "/v1/worlds", {
      id: "inn",
      name: "The Inn",
      startTime: "2023-02-13T07:00:00",
      clock: { mode: "manual" },
    })).status,
    201,
  );
  const agent = await call("POST", `${W}/agents`, {
    id: "mira",
    name: "Mira Stone",
    description: "Mira keeps the inn; she distrusts strangers",
  });
  assert.equal(agent.status, 201, JSON.stringify(agent.body));
  const count = async () => (await call("GET", `${A}/memories?limit=500`)).body.memories.length;
  const stream = (body: unknown) =>
    app.request(`${A}/respond`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(body),
    });
  return { call, count, stream };
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] respond: text without the name; streamed deltas, one done, stored once`,
    ...sanitizersFor(backend),
    fn: () =>
      withBackendApp(backend, async (app) => {
        const { call, count, stream } = await setUp(app);
        const plain = await call("POST", `${A}/respond`, { message: "A room, please." });
        assert.equal(plain.status, 200);
        assert.equal(plain.body.reply, `Mira Stone: ${plain.body.text}`);

        const before = await count();
        const res = await stream({ message: "Is the stew hot?", conversationId: "c1" });
        assert.equal(res.status, 200);
        assert.match(res.headers.get("content-type") ?? "", /text\/event-stream/);
        const got = await frames(res);
        const deltas = got.filter((f) => f.event === "delta");
        assert.ok(deltas.length >= 2, `several deltas (${deltas.length})`);
        assert.deepEqual(got.slice(deltas.length).map((f) => f.event), ["done"]);
        const done = got.at(-1)!.data;
        assert.equal(done.reply, `Mira Stone: ${done.text}`);
        assert.ok(done.text.includes(deltas.map((f) => f.data.text).join("").trim()));
        assert.equal(done.conversationId, "c1");
        assert.equal(done.stored.length, 2);
        assert.equal(await count(), before + 2, "the turn is stored once");

        const missing = await app.request(`${W}/agents/nobody/respond`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "text/event-stream" },
          body: JSON.stringify({ message: "hi" }),
        });
        assert.equal(missing.status, 404, "errors before the stream are plain JSON");
        assert.equal((await missing.json()).error.code, "agent_not_found");
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] respond streams through the OpenAI client; a broken stream stores nothing`,
    ...sanitizersFor(backend),
    async fn() {
      await using fake = await startFakeOpenAi();
      const model = new OpenAiLanguageModel({
        apiKey: "sk-test",
        baseURL: fake.url,
        mainModel: "fake-main",
        fastModel: "fake-fast",
        maxRetries: 0,
      });
      await withBackendApp(backend, async (app) => {
        const { count, stream } = await setUp(app);
        const before = await count();
        fake.script(
          "respond",
          respondAnswer("Mira Stone: We are full tonight, sorry.", { breakAfter: 6 }),
        );
        const broken = await frames(await stream({ message: "A room?", conversationId: "c2" }));
        const last = broken.at(-1)!;
        assert.equal(last.event, "error");
        assert.equal(last.data.error.code, "model_unavailable");
        assert.ok(!broken.some((f) => f.event === "done"));
        assert.equal(await count(), before, "nothing stored when generation fails");

        fake.script("respond", respondAnswer("Mira Stone: We have one room left, at the back."));
        const good = await frames(await stream({ message: "A room?", conversationId: "c2" }));
        const deltas = good.filter((f) => f.event === "delta").map((f) => f.data.text);
        assert.ok(deltas.length >= 3, `streamed as generated (${deltas.length})`);
        assert.equal(deltas.join(""), "We have one room left, at the back.", "no name prefix");
        const done = good.at(-1)!;
        assert.equal(done.event, "done");
        assert.equal(done.data.text, "We have one room left, at the back.");
        assert.equal(await count(), before + 2);
        const sent = fake.requests.filter((r) => r.kind === "respond");
        assert.equal((sent.at(-1)!.body as { stream?: boolean }).stream, true);
      }, { model });
    },
  });
}

Deno.test({
  name: "respond stream routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
