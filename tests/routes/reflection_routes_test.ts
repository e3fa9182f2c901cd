import assert from "node:assert/strict";
import { createApp } from "../../routes/app.ts";
import { startBackends } from "../_helpers/backends.ts";
import { appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { fakeModel } from "../_helpers/fake_model.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgent } from "../_helpers/http_world.ts";
import { countingModel } from "../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

type App = ReturnType<typeof createApp>;
type Memory = {
  id: string;
  kind: string;
  description: string;
  evidence?: string[];
  depth?: number;
  lastAccessedAt: string;
};

const OBSERVATIONS = [
  { text: "Klaus Mueller is reading a book on gentrification", at: "2023-02-13T08:00:00" },
  {
    text: "Klaus Mueller is conversing with a librarian about his research project",
    at: "2023-02-13T09:00:00",
  },
  { text: "Maria Lopez is studying physics at the library", at: "2023-02-13T10:00:00" },
  {
    text: "Klaus Mueller and Maria Lopez talk about their research over lunch",
    at: "2023-02-13T11:00:00",
  },
];

/** A world with Klaus (2 seeds); `settings` are the world's. */
function town(app: App, settings: Record<string, unknown> = {}) {
  return worldWithAgent(app, {
    id: "klaus",
    name: "Klaus Mueller",
    description:
      "Klaus Mueller is a student of sociology at Oak Hill College; Klaus Mueller is writing a research paper on gentrification",
  }, settings);
}

async function allMemories(app: App, a: string): Promise<Memory[]> {
  const page = await call(app, "GET", `${a}/memories?limit=500&order=asc`);
  assert.equal(page.status, 200);
  return page.body.memories;
}

/** The numbered memories a request showed the model, from its MEMORIES data block. */
function shownMemories(messages: { content: string }[]): string[] {
  const block = /<<<MEMORIES_DATA\n([\s\S]*)\nMEMORIES_DATA>>>/.exec(messages.at(-1)!.content);
  return (JSON.parse(block![1]) as string[]).map((line) => line.replace(/^\d+\. /, ""));
}

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name:
      `[${backend.name}] POST …/reflect with force stores cited insights, resets the counter and shows the evidence chain`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await town(app, { autoReflect: false });
        await call(app, "POST", `${a}/perceive`, { observations: OBSERVATIONS });
        const own = new Set((await allMemories(app, a)).map((m) => m.id));

        const r = await call(app, "POST", `${a}/reflect`, {
          force: true,
          at: "2023-02-13T12:00:00",
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.questions.length, 3, "the world's reflectionQuestions default");
        assert.ok(r.body.reflections.length > 0);
        assert.equal(r.body.usage.calls, 3, "questions, insights for all three, importance");
        for (const m of r.body.reflections as Memory[]) {
          assert.equal(m.kind, "reflection");
          assert.equal(m.depth, 1);
          assert.ok(m.evidence!.length > 0);
          for (const id of m.evidence!) assert.ok(own.has(id), `${id} is one of Klaus's memories`);
        }
        const agent = await call(app, "GET", a);
        assert.equal(agent.body.importanceSinceReflection, 0);

        const first: Memory = r.body.reflections[0];
        const read = await call(app, "GET", `${a}/memories/${first.id}`);
        assert.equal(read.status, 200);
        assert.deepEqual(
          read.body.evidenceChain.map((m: Memory) => m.id).sort(),
          [...first.evidence!].sort(),
        );

        // A second reflection sees the first among its evidence: trees grow.
        const again = await call(app, "POST", `${a}/reflect`, {
          force: true,
          at: "2023-02-13T13:00:00",
        });
        const deeper = (again.body.reflections as Memory[]).filter((m) => m.depth === 2);
        assert.ok(deeper.length > 0, "the offline insights cite the first reflection");
        for (const m of deeper) {
          const chain = await call(app, "GET", `${a}/memories/${m.id}`);
          assert.ok(chain.body.evidenceChain.some((e: Memory) => e.kind === "reflection"));
          assert.ok(chain.body.evidenceChain.some((e: Memory) => e.kind !== "reflection"));
        }
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] POST …/reflect is empty without a model call when not due, and validates its input`,
    ...opts,
    fn: async () => {
      const { model, kinds: calls } = countingModel();
      await withApp(async (app) => {
        const { w, a } = await town(app);
        calls.length = 0;
        for (const body of [undefined, {}, { force: false }]) {
          const r = await call(app, "POST", `${a}/reflect`, body);
          assert.equal(r.status, 200, JSON.stringify(r.body));
          assert.deepEqual(r.body.reflections, []);
          assert.deepEqual(r.body.usage, { calls: 0, promptTokens: 0, completionTokens: 0 });
        }
        assert.deepEqual(calls, []);
        const cases: [string, unknown, number, string][] = [
          [`${w}/agents/nobody/reflect`, { force: true }, 404, "agent_not_found"],
          ["/v1/worlds/nowhere/agents/klaus/reflect", { force: true }, 404, "world_not_found"],
          [`${a}/reflect`, { force: true, deep: true }, 400, "invalid_request"],
          [`${a}/reflect`, { force: "yes" }, 400, "invalid_request"],
          [`${a}/reflect`, { at: "tomorrow" }, 400, "invalid_request"],
        ];
        for (const [path, body, status, code] of cases) {
          const r = await call(app, "POST", path, body);
          assert.equal(
            r.status,
            status,
            `${path} ${JSON.stringify(body)} → ${JSON.stringify(r.body)}`,
          );
          assert.equal(r.body.error.code, code);
        }
        assert.deepEqual(calls, [], "no model call for a failed lookup");
      }, { model });
    },
  });

  Deno.test({
    name:
      `[${backend.name}] perceive reflects automatically when due, unless the world turns autoReflect off`,
    ...opts,
    fn: async () => {
      const { model, kinds: calls } = countingModel();
      await withApp(async (app) => {
        const { a } = await town(app, { reflectionThreshold: 10 });
        calls.length = 0;
        const r = await call(app, "POST", `${a}/perceive`, { observations: OBSERVATIONS });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.deepEqual(calls, [
          "importance",
          "reflection_questions",
          "reflection_insights",
          "importance",
        ]);
        assert.ok(r.body.reflections.length > 0);
        // The counter fields describe what perceive left; the reflection then reset it.
        const sum = r.body.memories.reduce(
          (s: number, m: { importance: number }) => s + m.importance,
          0,
        );
        assert.equal(r.body.importanceSinceReflection, sum);
        assert.equal(r.body.reflectionDue, true);
        assert.equal((await call(app, "GET", a)).body.importanceSinceReflection, 0);
        assert.equal(r.body.usage.calls, 4, "perceive's importance call and the reflection's 3");
        for (const m of r.body.reflections as Memory[]) {
          assert.equal(m.kind, "reflection");
          assert.equal(m.lastAccessedAt, "2023-02-13T11:00:00", "at the latest observation");
        }
        const stored = (await allMemories(app, a)).filter((m) => m.kind === "reflection");
        assert.deepEqual(
          stored.map((m) => m.id).sort(),
          r.body.reflections.map((m: Memory) => m.id).sort(),
        );

        const { a: manual } = await town(app, { reflectionThreshold: 10, autoReflect: false });
        const off = await call(app, "POST", `${manual}/perceive`, { observations: OBSERVATIONS });
        assert.equal(off.body.reflectionDue, true);
        assert.deepEqual(off.body.reflections, []);
        assert.equal(off.body.importanceSinceReflection, sum);
        assert.equal((await call(app, "GET", manual)).body.importanceSinceReflection, sum);
      }, { model });
    },
  });

  Deno.test({
    name:
      `[${backend.name}] reflect through the OpenAI client and the fake server: scripted citations map to ids; malformed twice is a 502 with nothing half-written`,
    ...opts,
    fn: async (t) => {
      await using m = await fakeModel();
      await withApp(async (app) => {
        const { a } = await town(app, { autoReflect: false });
        await call(app, "POST", `${a}/perceive`, { observations: OBSERVATIONS });
        const own = await allMemories(app, a);
        const idOf = new Map(own.map((x) => [x.description, x.id]));

        await t.step("scripted questions and insights", async () => {
          const start = m.fake.requests.length;
          m.fake.script("reflection_questions", {
            json: {
              questions: [
                "What topic is Klaus Mueller passionate about?",
                "What is the relationship between Klaus Mueller and Maria Lopez?",
                "Where does Klaus Mueller spend his days?",
              ],
            },
          });
          // One insights call answers the three questions.
          m.fake.script("reflection_insights", {
            json: {
              answers: [
                {
                  insights: [{
                    insight: "Klaus Mueller is dedicated to his research",
                    evidence: [1, 2, 99],
                  }],
                },
                {
                  insights: [
                    { insight: "Klaus and Maria share a love of research", evidence: [3] },
                    {
                      insight: "Unfounded",
                      evidence: [0, 77],
                    },
                  ],
                },
                {
                  insights: [{
                    insight: "klaus mueller is  dedicated to his research",
                    evidence: [4],
                  }],
                },
              ],
            },
          });
          const r = await call(app, "POST", `${a}/reflect`, {
            force: true,
            at: "2023-02-13T12:00:00",
          });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          const chats = m.fake.requests.slice(start).filter((q) =>
            q.path === "/v1/chat/completions"
          );
          // Exactly 3 completions: questions, insights, 1 importance for both insights.
          assert.deepEqual(chats.map((q) => q.kind), [
            "reflection_questions",
            "reflection_insights",
            "importance",
          ]);
          assert.deepEqual(m.fake.pending(), {});
          const cited = (numbers: number[]) =>
            numbers.map((n) => idOf.get(shownMemories(chats[1].messages!)[n - 1])!);
          const reflections: Memory[] = r.body.reflections;
          assert.deepEqual(reflections.map((x) => x.description), [
            "Klaus Mueller is dedicated to his research",
            "Klaus and Maria share a love of research",
          ]);
          assert.deepEqual(reflections[0].evidence, cited([1, 2, 4]));
          assert.deepEqual(reflections[1].evidence, cited([3]));
          const rated = /<<<EVENTS_DATA\n([\s\S]*)\nEVENTS_DATA>>>/.exec(
            chats[2].messages!.at(-1)!.content,
          );
          assert.deepEqual(
            JSON.parse(rated![1]),
            reflections.map((x) => x.description),
            "one importance call for all insights",
          );
        });

        await t.step("malformed twice: 502, stream and counter unchanged", async () => {
          await call(app, "POST", `${a}/perceive`, {
            observations: [{
              text: "Maria Lopez invites Klaus to a party",
              at: "2023-02-13T14:00:00",
            }],
          });
          const agentBefore = await call(app, "GET", a);
          const before = await allMemories(app, a);
          m.fake.script(
            "reflection_questions",
            { content: "1. What does Klaus love? 2. Who is Maria?" },
            { json: { questions: ["only one"] } },
          );
          const r = await call(app, "POST", `${a}/reflect`, { force: true });
          assert.equal(r.status, 502);
          assert.equal(r.body.error.code, "model_invalid_output");
          assert.deepEqual(await allMemories(app, a), before, "nothing written, nothing touched");
          const agentAfter = await call(app, "GET", a);
          assert.equal(
            agentAfter.body.importanceSinceReflection,
            agentBefore.body.importanceSinceReflection,
          );
          assert.ok(agentAfter.body.importanceSinceReflection > 0);

          // Insights malformed twice (the request and its repair): still all or nothing.
          m.fake.script("reflection_questions", {
            json: { questions: ["Who is Maria Lopez?", "What is Klaus studying?", "Why a party?"] },
          });
          m.fake.script(
            "reflection_insights",
            ...Array(2).fill({ content: '{"insights": "many"}' }),
          );
          const r2 = await call(app, "POST", `${a}/reflect`, { force: true });
          assert.equal(r2.status, 502);
          assert.equal(r2.body.error.code, "model_invalid_output");
          const after = await allMemories(app, a);
          assert.deepEqual(after.map((x) => x.id), before.map((x) => x.id));
          assert.equal(
            (await call(app, "GET", a)).body.importanceSinceReflection,
            agentBefore.body.importanceSinceReflection,
          );
        });

        await t.step("a failed automatic reflection leaves perceive's result intact", async () => {
          const { a: auto } = await town(app, { reflectionThreshold: 10 });
          m.fake.script(
            "reflection_questions",
            { content: "not json" },
            { content: "still not json" },
          );
          const r = await call(app, "POST", `${auto}/perceive`, { observations: OBSERVATIONS });
          assert.equal(r.status, 200, JSON.stringify(r.body));
          assert.deepEqual(r.body.reflections, []);
          assert.equal(r.body.reflectionDue, true, "still due: the next perceive tries again");
          const stored = await allMemories(app, auto);
          assert.equal(stored.filter((x) => x.kind === "observation").length, 4);
          assert.equal(stored.filter((x) => x.kind === "reflection").length, 0);
          const agent = await call(app, "GET", auto);
          assert.equal(agent.body.importanceSinceReflection, r.body.importanceSinceReflection);
        });
      }, { model: m.model });
    },
  });
}

Deno.test({
  name: "reflection routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
