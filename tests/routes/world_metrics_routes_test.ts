/**
 * `POST /v1/worlds/{world}/metrics`: diffusion, density and attendance measured by interviewing
 * the agents, on both storage backends with the offline judge, and with the fake OpenAI server
 * as judge.
 */
import assert from "node:assert/strict";
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";
import { startBackends } from "../_helpers/backends.ts";
import { type Call, fakeJudge, withJudgedApp } from "../_helpers/judged_app.ts";
import { sanitizersFor } from "../_helpers/backend_app.ts";

const { backends, close } = await startBackends();

const PARTY = "Lucia Ferreira is hosting a Valentine's Day party at Marigold Cafe";
const EVENT = { place: "Marigold Cafe", from: "2023-02-14T17:00:00", to: "2023-02-14T19:00:00" };

/** Lucia hosts and knows Klaus; Klaus heard of the party and knows Lucia; Maria knows no one. */
async function town(call: Call): Promise<void> {
  const w = await call("POST", "/v1/worlds", {
    id: "w",
    name: "W",
    startTime: "2023-02-14T20:00:00",
  });
  assert.equal(w.status, 201, JSON.stringify(w.body));
  for (
    const [id, name, description] of [
      [
        "lucia",
        "Lucia Ferreira",
        "Lucia Ferreira owns Marigold Cafe; she is hosting a Valentine's Day party at Marigold Cafe on February 14; her friend Klaus Mueller helps her",
      ],
      [
        "klaus",
        "Klaus Mueller",
        "Klaus Mueller is a student who studies at Marigold Cafe; he is a friend of Lucia Ferreira",
      ],
      ["maria", "Maria Lopez", "Maria Lopez is a painter who lives alone and keeps to herself"],
    ]
  ) {
    assert.equal(
      (await call("POST", "/v1/worlds/w/agents", { id, name, description })).status,
      201,
    );
  }
  const heard = await call("POST", "/v1/worlds/w/agents/klaus/perceive", {
    observations: [{
      text:
        "Lucia Ferreira told Klaus Mueller she is hosting a Valentine's Day party at Marigold Cafe",
      at: "2023-02-14T09:00:00",
    }],
  });
  assert.equal(heard.status, 200, JSON.stringify(heard.body));
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] metrics interviews every agent: who heard the party, who knows whom, who was there, with each answer as evidence`,
    ...sanitizersFor(backend),
    fn: () =>
      withJudgedApp(backend, {}, async (call) => {
        await town(call);
        const before =
          (await call("GET", "/v1/worlds/w/agents/klaus/memories?limit=100")).body.memories.length;
        const res = await call("POST", "/v1/worlds/w/metrics", { facts: [PARTY], event: EVENT });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const r = res.body;
        assert.equal(r.agents, 3);
        const [party] = r.diffusion;
        assert.equal(party.fact, PARTY);
        assert.deepEqual([...party.knows].sort(), ["Klaus Mueller", "Lucia Ferreira"]);
        assert.equal(party.share, 0.667);
        assert.equal(party.evidence.length, 3);
        const maria = party.evidence.find((e: { agent: string }) => e.agent === "Maria Lopez");
        assert.equal(maria.knows, false);
        assert.match(maria.answer, /^Maria Lopez: /);
        assert.match(maria.question, /Have you heard anything about this/);
        assert.deepEqual(r.networkDensity.pairs, [["klaus", "lucia"]]); // agents in id order
        assert.equal(r.networkDensity.density, 0.333);
        assert.equal(r.networkDensity.evidence.length, 6, "each agent asked about each other");
        assert.match(
          r.networkDensity.evidence[0].question,
          /^Do you know (Lucia Ferreira|Klaus Mueller|Maria Lopez)\?$/,
        );
        assert.deepEqual(r.attendance.place, "Marigold Cafe");
        assert.equal(r.attendance.evidence.length, 3);
        assert.ok(Array.isArray(r.attendance.attended));
        assert.equal(r.judge.offline, true);
        assert.equal(
          r.usage.judge.calls,
          12,
          "one judge call per answer: fact, event, two people each",
        );
        assert.ok(r.usage.agent.calls >= 12, "one agent call per question");
        const after =
          (await call("GET", "/v1/worlds/w/agents/klaus/memories?limit=100")).body.memories.length;
        assert.equal(after, before, "interviews store nothing");

        const none = await call("POST", "/v1/worlds/w/metrics", {});
        assert.equal(none.status, 200);
        assert.deepEqual(none.body.diffusion, []);
        assert.equal(none.body.attendance, null);
        const bad = await call("POST", "/v1/worlds/w/metrics", {
          event: { ...EVENT, to: "2023-02-14T16:00:00" },
        });
        assert.equal(bad.status, 400);
        assert.equal((await call("POST", "/v1/worlds/nope/metrics", {})).status, 404);
      }),
  });
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] metrics with the fake OpenAI server as judge: its reading decides the numbers, and it reads answers as data`,
    ...sanitizersFor(backend),
    fn: async () => {
      await using fake = await startFakeOpenAi();
      const judge = fakeJudge(fake.url);
      await withJudgedApp(backend, { judge }, async (call) => {
        await town(call);
        const everyone = {
          knows: true,
          names: ["Lucia Ferreira", "Klaus Mueller", "Maria Lopez"],
          reason: "says so",
        };
        fake.script("judge_knowledge", ...Array.from({ length: 12 }, () => ({ json: everyone })));
        const res = await call("POST", "/v1/worlds/w/metrics", { facts: [PARTY], event: EVENT });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.diffusion[0].share, 1);
        assert.equal(res.body.networkDensity.density, 1);
        assert.equal(res.body.attendance.attended.length, 3);
        assert.deepEqual(res.body.judge, {
          model: "fake-judge",
          offline: false,
          label: "judge model fake-judge",
        });
        const read = fake.requests.filter((r) => r.kind === "judge_knowledge");
        assert.equal(read.length, 12);
        assert.ok(read.every((r) => /<<<ANSWER_DATA\n/.test(r.messages![1].content)));
        assert.equal(fake.pending().judge_knowledge ?? 0, 0);
      });
    },
  });
}

Deno.test({
  name: "backends closed",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () => close(),
});
