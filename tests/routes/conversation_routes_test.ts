import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { createApp } from "../../routes/app.ts";
import type { LanguageModel } from "../../src/ports/language_model.ts";
import { startBackends } from "../_helpers/backends.ts";
import { appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { fakeModel } from "../_helpers/fake_model.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgents } from "../_helpers/http_world.ts";

const { backends, close } = await startBackends();

type App = ReturnType<typeof createApp>;

interface Line {
  speaker: string;
  name: string;
  text: string;
  at: string;
}

interface Memory {
  description: string;
  provenance: string;
  createdAt: string;
}

/** A world with Isabella and Klaus; returns the world's path. */
function town(app: App, settings: Record<string, unknown> = {}): Promise<string> {
  return worldWithAgents(app, [
    {
      id: "isabella",
      name: "Isabella Rodriguez",
      description:
        "Isabella Rodriguez is the owner of Hobbs Cafe; she is planning a Valentine's Day party at the cafe",
    },
    {
      id: "klaus",
      name: "Klaus Mueller",
      description:
        "Klaus Mueller is a student at Oak Hill College; Klaus Mueller is writing a paper on gentrification",
    },
  ], settings);
}

async function chats(app: App, w: string, agent: string): Promise<Memory[]> {
  const page = await call(app, "GET", `${w}/agents/${agent}/memories?kind=chat&order=asc`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body.memories;
}

/** Both participants remember every line: their own as "self", the other's as told by them. */
async function assertRemembered(app: App, w: string, lines: Line[]): Promise<void> {
  const names: Record<string, string> = { isabella: "Isabella Rodriguez", klaus: "Klaus Mueller" };
  for (const agent of ["isabella", "klaus"]) {
    const memories = await chats(app, w, agent);
    assert.equal(memories.length, lines.length, agent);
    memories.forEach((m, i) => {
      assert.ok(m.description.includes(lines[i].text), m.description);
      assert.equal(m.createdAt, lines[i].at);
      assert.equal(
        m.provenance,
        lines[i].speaker === agent ? "self" : `told_by:${names[lines[i].speaker]}`,
      );
    });
  }
}

function alternates(lines: Line[], first: string, second: string): void {
  lines.forEach((l, i) => assert.equal(l.speaker, i % 2 === 0 ? first : second));
}

const sawKlaus = {
  observations: ["Klaus Mueller is reading a book at the cafe"],
  observed: { agent: "klaus", status: "reading a book" },
  at: "2023-02-13T14:00:00",
};

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name:
      `[${backend.name}] POST …/conversations alternates speakers, ends by a speaker and lands in both streams`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await town(app);
        const res = await call(app, "POST", `${w}/conversations`, {
          participants: ["isabella", "klaus"],
          topic: "invite Klaus to the Valentine's Day party",
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const { lines, endedBy } = res.body;
        // Nobody has news to pass on: the offline replier says goodbye on its second line.
        assert.equal(endedBy, "other");
        assert.equal(lines.length, 4);
        alternates(lines, "isabella", "klaus");
        assert.equal(lines[0].at, "2023-02-13T07:00:00", "the world clock by default");
        assert.equal(lines[1].at, "2023-02-13T07:01:00", "one game minute per line");
        assert.match(lines[0].text, /Valentine's Day party/);
        assert.ok(res.body.usage.calls >= lines.length);
        await assertRemembered(app, w, lines);
      }),
  });

  Deno.test({
    name: `[${backend.name}] GET …/conversations/{id} reads the stored lines; unknown ids are 404`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await town(app);
        const made = await call(app, "POST", `${w}/conversations`, {
          participants: ["isabella", "klaus"],
        });
        assert.equal(made.status, 200, JSON.stringify(made.body));
        const read = await call(app, "GET", `${w}/conversations/${made.body.id}`);
        assert.equal(read.status, 200, JSON.stringify(read.body));
        assert.deepEqual(read.body.lines, made.body.lines);
        assert.deepEqual(read.body.participants, ["isabella", "klaus"]);
        assert.equal(read.body.endedBy, made.body.endedBy);
        const missing = await call(app, "GET", `${w}/conversations/c_nope`);
        assert.equal(missing.status, 404);
        assert.equal(missing.body.error.code, "not_found");
        assert.match(missing.body.error.message, /c_nope/);
        const noWorld = await call(app, "GET", `/v1/worlds/nowhere/conversations/${made.body.id}`);
        assert.equal(noWorld.body.error.code, "world_not_found");
      }),
  });

  Deno.test({
    name: `[${backend.name}] POST …/conversations stops at the per-speaker turn cap`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await town(app, { conversationTurnCap: 2 });
        const res = await call(app, "POST", `${w}/conversations`, {
          participants: ["klaus", "isabella"],
          at: "2023-02-13T12:00:00",
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.endedBy, "turn_cap");
        assert.equal(res.body.lines.length, 4);
        alternates(res.body.lines, "klaus", "isabella");
        await assertRemembered(app, w, res.body.lines);
      }, {
        model: new OfflineLanguageModel({
          responders: { dialogue_line: () => ({ line: "Tell me more.", end: false }) },
        }),
      }),
  });

  Deno.test({
    name: `[${backend.name}] POST …/conversations rejects bad participants`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await town(app);
        const other = await town(app);
        await call(app, "POST", `${other}/agents`, {
          id: "maria",
          name: "Maria",
          description: "x",
        });
        const cases: [unknown, number, string][] = [
          [{ participants: ["klaus", "klaus"] }, 422, "unprocessable"],
          [{ participants: ["klaus"] }, 400, "invalid_request"],
          [{ participants: ["klaus", "isabella"], extra: 1 }, 400, "invalid_request"],
          [{ participants: ["klaus", "nobody"] }, 404, "agent_not_found"],
          [{ participants: ["klaus", "maria"] }, 404, "agent_not_found"],
          [
            { participants: ["klaus", "isabella"], at: "2020-01-01T10:00:00" },
            422,
            "unprocessable",
          ],
        ];
        for (const [body, status, code] of cases) {
          const res = await call(app, "POST", `${w}/conversations`, body);
          assert.equal(res.status, status, JSON.stringify(body));
          assert.equal(res.body.error.code, code, JSON.stringify(body));
        }
        const noWorld = await call(app, "POST", "/v1/worlds/nowhere/conversations", {
          participants: ["klaus", "isabella"],
        });
        assert.equal(noWorld.body.error.code, "world_not_found");
        assert.deepEqual(await chats(app, w, "klaus"), []);
      }),
  });

  Deno.test({
    name: `[${backend.name}] POST …/conversations answers 409 when a participant stays busy`,
    ...opts,
    fn: () =>
      withApp(async (app, deps) => {
        const w = await town(app);
        const worldId = w.split("/").at(-1);
        const lease = await deps.storage.locks.acquire(`agent:${worldId}:klaus`, 60_000);
        assert.ok(lease);
        try {
          const res = await call(app, "POST", `${w}/conversations`, {
            participants: ["isabella", "klaus"],
          });
          assert.equal(res.status, 409, JSON.stringify(res.body));
          assert.equal(res.body.error.code, "conflict");
        } finally {
          await deps.storage.locks.release(lease);
        }
      }, { sleep: () => Promise.resolve() }),
  });

  Deno.test({
    name: `[${backend.name}] POST …/react talks, then vetoes a second talk during and right after`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await town(app);
        const first = await call(app, "POST", `${w}/agents/isabella/react`, sawKlaus);
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.equal(first.body.decision, "talk");
        assert.equal(first.body.vetoed, undefined);
        const talk = first.body.conversation;
        assert.equal(talk.lines[0].at, sawKlaus.at);
        alternates(talk.lines, "isabella", "klaus");
        await assertRemembered(app, w, talk.lines);

        const during = await call(app, "POST", `${w}/agents/isabella/react`, sawKlaus);
        assert.equal(during.body.vetoed, "already_talking");
        const after = await call(app, "POST", `${w}/agents/klaus/react`, {
          observations: ["Isabella Rodriguez is wiping the counter"],
          observed: { agent: "isabella", status: "wiping the counter" },
          at: talk.endedAt,
        });
        assert.equal(after.status, 200, JSON.stringify(after.body));
        assert.equal(after.body.vetoed, "talked_recently");
        assert.equal(after.body.decision, "continue");
        assert.deepEqual(after.body.usage, { calls: 0, promptTokens: 0, completionTokens: 0 });
        assert.equal((await chats(app, w, "klaus")).length, talk.lines.length, "no second talk");
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] POST …/react takes the observed status from its plan, but not when vetoed`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await town(app);
        const body = { observations: sawKlaus.observations, observed: { agent: "klaus" } };
        const night = await call(app, "POST", `${w}/agents/isabella/react`, {
          ...body,
          at: "2023-02-13T23:30:00",
        });
        assert.equal(night.status, 200, JSON.stringify(night.body));
        assert.equal(night.body.vetoed, "late_night");
        assert.equal(night.body.usage.calls, 0, "Klaus's day was not planned for a veto");

        const day = await call(app, "POST", `${w}/agents/isabella/react`, {
          ...body,
          at: "2023-02-13T14:00:00",
        });
        assert.equal(day.status, 200, JSON.stringify(day.body));
        assert.equal(day.body.vetoed, undefined);
        const klaus = await call(app, "GET", `${w}/agents/klaus`);
        assert.ok(klaus.body.action, "Klaus's current action was worked out from his plan");
      }),
  });

  Deno.test({
    name: `[${backend.name}] POST …/react rejects bad input`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await town(app);
        const cases: [string, unknown, number, string][] = [
          ["isabella", { observations: [] }, 400, "invalid_request"],
          [
            "isabella",
            { observations: ["x"], observed: { agent: "isabella" } },
            400,
            "invalid_request",
          ],
          [
            "isabella",
            { observations: ["x"], observed: { agent: "nobody" } },
            404,
            "agent_not_found",
          ],
          ["nobody", { observations: ["x"] }, 404, "agent_not_found"],
        ];
        for (const [agent, body, status, code] of cases) {
          const res = await call(app, "POST", `${w}/agents/${agent}/react`, body);
          assert.equal(res.status, status, JSON.stringify(body));
          assert.equal(res.body.error.code, code, JSON.stringify(body));
        }
      }),
  });
}

Deno.test({
  name: "POST …/conversations and …/react follow scripted model answers (fake OpenAI server)",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async () => {
    await using m = await fakeModel();
    // Planning's prompts (day_plan, item_plan, actions) are answered offline: their answers must
    // follow the day's timeline, which the fake's schema-sampled answers do not, and planning's
    // own tests script them. Every other call goes to the fake server.
    const offline = new OfflineLanguageModel();
    const planning = new Set(["day_plan", "item_plan", "actions"]);
    const model: LanguageModel = {
      info: m.model.info,
      complete: (prompt, attribution) =>
        (planning.has(prompt.kind) ? offline : m.model).complete(prompt, attribution),
    };
    await using deps = await makeTestDeps({ model });
    const app = createApp(deps, { logger: silentLogger });
    const w = await town(app);

    // An explicit conversation that the initiator ends early, on its second line.
    m.fake.script(
      "dialogue_line",
      { json: { line: "Klaus! Will you come to my party on Friday?", end: false } },
      { json: { line: "I'd love to, thank you.", end: false } },
      { json: { line: "Wonderful, see you at five!", end: true } },
    );
    const res = await call(app, "POST", `${w}/conversations`, {
      participants: ["isabella", "klaus"],
      topic: "the party",
      at: "2023-02-13T09:00:00",
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.endedBy, "initiator");
    assert.deepEqual(res.body.replanFailed, []);
    assert.deepEqual(res.body.lines.map((l: Line) => l.text), [
      "Klaus! Will you come to my party on Friday?",
      "I'd love to, thank you.",
      "Wonderful, see you at five!",
    ]);
    await assertRemembered(app, w, res.body.lines);
    const heard = (await chats(app, w, "klaus"))[0];
    assert.equal(
      heard.description,
      'Isabella Rodriguez said to Klaus Mueller: "Klaus! Will you come to my party on Friday?"',
    );
    const opening = m.fake.requests.find((r) => r.kind === "dialogue_line");
    assert.equal(opening?.model, "fake-main");
    assert.match(opening?.messages?.[1].content ?? "", /<<<INTENT_DATA[\s\S]*the party/);

    // A reaction that decides to talk; the other agent ends the conversation.
    m.fake.script("reaction", {
      json: { decision: "talk", reason: "Klaus looks free.", reaction: "ask about his paper" },
    });
    m.fake.script(
      "dialogue_line",
      { json: { line: "How is your paper going?", end: false } },
      { json: { line: "Slowly. I have to run, sorry!", end: true } },
    );
    const react = await call(app, "POST", `${w}/agents/isabella/react`, sawKlaus);
    assert.equal(react.status, 200, JSON.stringify(react.body));
    assert.equal(react.body.decision, "talk");
    assert.equal(react.body.reaction, "ask about his paper");
    assert.equal(react.body.conversation.endedBy, "other");
    assert.equal(react.body.conversation.topic, "ask about his paper");
    assert.equal(react.body.conversation.lines.length, 2);
    assert.equal(m.fake.requests.find((r) => r.kind === "reaction")?.model, "fake-fast");
    assert.deepEqual(m.fake.pending(), {}, "every scripted answer was used");
    assert.equal((await chats(app, w, "klaus")).length, 5);
  },
});

Deno.test({
  name: "conversation routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
