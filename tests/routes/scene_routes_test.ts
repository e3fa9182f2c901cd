/**
 * Scenes over HTTP on both storage backends (issue 23): a three-party conversation in every
 * stream, a bystander who overhears it (and none for a private one), refused participants, a
 * player seen by an agent in a tick who starts a conversation the game answers and closes, a
 * game-opened conversation with a player (keys bound to a player: player_key_routes_test.ts).
 */
import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { startBackends } from "../_helpers/backends.ts";
import { type App, appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgents } from "../_helpers/http_world.ts";
import { countingModel } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

interface Line {
  speaker: string;
  name: string;
  text: string;
}

interface Memory {
  description: string;
  provenance: string;
  confidence?: number;
}

const PEOPLE = [
  {
    id: "isabella",
    name: "Isabella Rodriguez",
    description:
      "Isabella Rodriguez is the owner of Hobbs Cafe; she is planning a Valentine's Day party at the cafe",
  },
  {
    id: "klaus",
    name: "Klaus Mueller",
    description: "Klaus Mueller is a student at Oak Hill College; he writes about gentrification",
  },
  {
    id: "maria",
    name: "Maria Lopez",
    description: "Maria Lopez is a physics student; Maria Lopez streams games in the evening",
  },
  {
    id: "tom",
    name: "Tom Moreno",
    description: "Tom Moreno runs the grocery store; Tom Moreno likes a quiet coffee",
  },
];

/** A world with the four at Hobbs Cafe, awake; returns the world's path. */
async function cafe(app: App, settings: Record<string, unknown> = {}): Promise<string> {
  const w = await worldWithAgents(app, PEOPLE, settings);
  for (const p of PEOPLE) {
    const moved = await call(app, "PATCH", `${w}/agents/${p.id}`, {
      location: "Hobbs Cafe",
      action: "having a coffee",
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
  }
  return w;
}

async function chats(app: App, w: string, agent: string): Promise<Memory[]> {
  const page = await call(app, "GET", `${w}/agents/${agent}/memories?kind=chat&order=asc`);
  assert.equal(page.status, 200, JSON.stringify(page.body));
  return page.body.memories;
}

/** The offline model, but every reaction to a newcomer is to talk to them. */
function talkative() {
  return countingModel(
    new OfflineLanguageModel({
      responders: {
        reaction: () => ({ decision: "talk", reason: "A new face.", reaction: "greet them" }),
      },
    }),
  );
}

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name:
      `[${backend.name}] a three-party conversation lands in all three streams, and a bystander overhears it`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await cafe(app);
        const res = await call(app, "POST", `${w}/conversations`, {
          participants: ["isabella", "klaus", "maria"],
          topic: "the Valentine's Day party",
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const lines: Line[] = res.body.lines;
        assert.deepEqual(res.body.participants, ["isabella", "klaus", "maria"]);
        assert.ok(lines.length >= 3, JSON.stringify(lines));
        assert.equal(lines[0].speaker, "isabella");
        lines.slice(1).forEach((l, i) => assert.notEqual(l.speaker, lines[i].speaker));
        assert.equal(new Set(lines.map((l) => l.speaker)).size, 3, "everyone spoke");
        assert.deepEqual(res.body.listeners, ["tom"]);
        for (const agent of ["isabella", "klaus", "maria"]) {
          const memories = await chats(app, w, agent);
          assert.equal(memories.length, lines.length, agent);
          memories.forEach((m, i) => {
            assert.ok(m.description.includes(lines[i].text), m.description);
            assert.equal(
              m.provenance,
              lines[i].speaker === agent ? "self" : `told_by:${lines[i].name}`,
            );
            assert.equal(m.confidence, undefined);
          });
        }
        const overheard = await chats(app, w, "tom");
        assert.ok(overheard.length >= 1 && overheard.length <= 3, "within the bandwidth of 3");
        for (const m of overheard) {
          assert.match(m.provenance, /^overheard:/);
          assert.ok(m.confidence! < 1, "less sure than being told");
          assert.match(m.description, /^Tom Moreno overheard /);
        }
        const read = await call(app, "GET", `${w}/conversations/${res.body.id}`);
        assert.deepEqual(read.body.listeners, ["tom"]);
        assert.deepEqual(read.body.lines, res.body.lines);
      }),
  });

  Deno.test({
    name: `[${backend.name}] nobody overhears a private conversation`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await cafe(app);
        const res = await call(app, "POST", `${w}/conversations`, {
          participants: ["isabella", "klaus"],
          private: true,
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.private, true);
        assert.equal(res.body.listeners, undefined);
        assert.deepEqual(await chats(app, w, "tom"), []);
        assert.deepEqual(await chats(app, w, "maria"), []);
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] refused participants are named before any model call (twice, unknown, asleep, talking)`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await cafe(app);
        const asleep = await call(app, "PATCH", `${w}/agents/tom`, { action: "sleeping" });
        assert.equal(asleep.status, 200);
        const before = counter.calls();
        const cases: [unknown, number, string, string][] = [
          [{ participants: ["klaus", "maria", "klaus"] }, 422, "unprocessable", "klaus"],
          [{ participants: ["klaus", "nobody", "maria"] }, 404, "agent_not_found", "nobody"],
          [{ participants: ["klaus", "maria", "tom"] }, 409, "conflict", "tom"],
          [
            { participants: ["a", "b", "c", "d", "e", "f", "g", "h", "i"] },
            400,
            "invalid_request",
            "",
          ],
        ];
        for (const [body, status, code, named] of cases) {
          const res = await call(app, "POST", `${w}/conversations`, body);
          assert.equal(res.status, status, JSON.stringify(res.body));
          assert.equal(res.body.error.code, code);
          assert.ok(res.body.error.message.includes(named), res.body.error.message);
        }
        assert.equal(counter.calls(), before, "no model call");
        const first = await call(app, "POST", `${w}/conversations`, {
          participants: ["isabella", "klaus"],
        });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        const busy = await call(app, "POST", `${w}/conversations`, {
          participants: ["maria", "klaus"],
          at: first.body.lines[0].at,
        });
        assert.equal(busy.status, 409, JSON.stringify(busy.body));
        assert.match(busy.body.error.message, /"klaus" is already talking/);
      }, { model: counter.model }),
  });

  Deno.test({
    name:
      `[${backend.name}] a player seen in a tick is greeted; the game answers through …/lines and ends it`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await worldWithAgents(app, [PEOPLE[0]]);
        const made = await call(app, "POST", `${w}/agents`, {
          id: "ada",
          kind: "player",
          name: "Ada",
          description: "A traveller",
        });
        assert.equal(made.status, 201, JSON.stringify(made.body));
        assert.equal(made.body.kind, "player");
        assert.deepEqual(made.body.seeds, []);
        assert.equal(made.body.usage.calls, 0, "a player costs no model call");
        await call(app, "PATCH", `${w}/agents/isabella`, {
          location: "Hobbs Cafe",
          action: "wiping the counter",
        });
        const tick = await call(app, "POST", `${w}/tick`, { minutes: 10 });
        assert.equal(tick.status, 200, JSON.stringify(tick.body));
        const moved = await call(app, "PATCH", `${w}/agents/ada`, {
          location: "Hobbs Cafe",
          action: "looking at the menu",
        });
        assert.equal(moved.status, 200, JSON.stringify(moved.body));
        const second = await call(app, "POST", `${w}/tick`, { minutes: 10 });
        assert.equal(second.status, 200, JSON.stringify(second.body));
        const playerStep = second.body.steps.find((s: { agentId: string }) => s.agentId === "ada");
        assert.equal(playerStep.action, "looking at the menu", "the game's action stands");
        const events = await call(app, "GET", `${w}/events?after=0&limit=500`);
        const started = events.body.events.find((e: { type: string }) =>
          e.type === "conversation.started"
        );
        assert.ok(started, JSON.stringify(events.body.events.map((e: { type: string }) => e.type)));
        assert.equal(started.agentId, "isabella");
        assert.deepEqual(started.players, ["ada"]);
        assert.equal(started.line.speaker, "isabella");
        const id = started.conversationId;

        const stranger = await call(app, "POST", `${w}/conversations/${id}/lines`, {
          speaker: "isabella",
          text: "I am Isabella pretending",
        });
        assert.equal(stranger.status, 403, JSON.stringify(stranger.body));
        const answered = await call(app, "POST", `${w}/conversations/${id}/lines`, {
          speaker: "ada",
          text: "Hello! Is there a party here soon?",
        });
        assert.equal(answered.status, 200, JSON.stringify(answered.body));
        assert.equal(answered.body.lines[0].speaker, "isabella");
        assert.ok(answered.body.lines[0].text.length > 0);
        if (answered.body.open) {
          const ended = await call(app, "POST", `${w}/conversations/${id}/end`);
          assert.equal(ended.status, 200, JSON.stringify(ended.body));
          assert.equal(ended.body.open, false);
          assert.equal(ended.body.endedBy, "ended");
        }
        const late = await call(app, "POST", `${w}/conversations/${id}/lines`, {
          speaker: "ada",
          text: "One more thing",
        });
        assert.equal(late.status, 409, JSON.stringify(late.body));
        const stored = await call(app, "GET", `${w}/conversations/${id}`);
        assert.equal(stored.body.open, false);
        const remembered = await chats(app, w, "isabella");
        assert.ok(
          remembered.some((m) =>
            m.provenance === "told_by:Ada" && m.description.includes("party here soon")
          ),
          JSON.stringify(remembered),
        );
        assert.deepEqual(await chats(app, w, "ada"), [], "the game remembers for its player");
      }, { model: talkative().model }),
  });

  Deno.test({
    name:
      `[${backend.name}] a game opens a conversation with a player; it times out after playerReplyMinutes`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const w = await worldWithAgents(app, [PEOPLE[0], PEOPLE[1]], { playerReplyMinutes: 15 });
        await call(app, "POST", `${w}/agents`, {
          id: "ada",
          kind: "player",
          name: "Ada",
          description: "A traveller",
        });
        const opened = await call(app, "POST", `${w}/conversations`, {
          participants: ["ada", "isabella", "klaus"],
        });
        assert.equal(opened.status, 200, JSON.stringify(opened.body));
        assert.equal(opened.body.open, true);
        assert.deepEqual(opened.body.lines, [], "it waits for the player's line");
        const id = opened.body.conversationId;
        const outsider = await call(app, "POST", `${w}/conversations/${id}/lines`, {
          speaker: "maria",
          text: "hi",
        });
        assert.equal(outsider.status, 403, JSON.stringify(outsider.body));
        const said = await call(app, "POST", `${w}/conversations/${id}/lines`, {
          speaker: "ada",
          text: "Hello Klaus, how is the paper?",
        });
        assert.equal(said.status, 200, JSON.stringify(said.body));
        assert.equal(said.body.lines[0].speaker, "klaus", "the one addressed answers");
        await call(app, "POST", `${w}/tick`, { minutes: 30 });
        const late = await call(app, "POST", `${w}/conversations/${id}/lines`, {
          speaker: "ada",
          text: "Sorry, I was away",
        });
        assert.equal(late.status, 409, JSON.stringify(late.body));
        assert.equal(late.body.error.details.endedBy, "timeout");
      }),
  });
}

/** Counts model calls across a test. */
const counter = (() => {
  const c = countingModel(new OfflineLanguageModel());
  return { model: c.model, calls: () => c.kinds.length };
})();

Deno.test({
  name: "scene routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
