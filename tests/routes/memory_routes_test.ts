import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { createApp } from "../../routes/app.ts";
import { ModelUnavailableError } from "../../src/domain/errors.ts";
import type { Embedder } from "../../src/ports/embedder.ts";
import { startBackends } from "../_helpers/backends.ts";
import { appOn, sanitizersFor } from "../_helpers/backend_app.ts";
import { countingModel, makeTestDeps, unreachableModel } from "../_helpers/test_deps.ts";
import { call } from "../_helpers/http_call.ts";
import { worldWithAgent } from "../_helpers/http_world.ts";

const { backends, close } = await startBackends();

type App = ReturnType<typeof createApp>;

function town(app: App, settings: Record<string, unknown> = {}) {
  return worldWithAgent(app, {
    id: "isabella",
    name: "Isabella Rodriguez",
    age: 34,
    traits: "friendly, outgoing, hospitable",
    description:
      "Isabella Rodriguez is the owner of Hobbs Cafe; she loves to make people feel welcome; she is planning a Valentine's Day party at the cafe",
  }, settings);
}

for (const backend of backends) {
  const opts = sanitizersFor(backend);
  const withApp = appOn(backend);

  Deno.test({
    name: `[${backend.name}] POST …/agents splits the description into seed memories`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await town(app);
        const page = await call(app, "GET", `${a}/memories?kind=seed&order=asc`);
        assert.equal(page.status, 200);
        assert.deepEqual(page.body.memories.map((m: { description: string }) => m.description), [
          "Isabella Rodriguez is the owner of Hobbs Cafe",
          "she loves to make people feel welcome",
          "she is planning a Valentine's Day party at the cafe",
        ]);
        for (const m of page.body.memories) {
          assert.equal(m.provenance, "seed");
          assert.equal(m.createdAt, "2023-02-13T07:00:00");
          assert.ok(m.importance >= 1 && m.importance <= 10);
        }
        const agent = await call(app, "GET", a);
        assert.deepEqual(agent.body.traits, ["friendly", "outgoing", "hospitable"]);
        assert.equal(agent.body.importanceSinceReflection, 0);
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] perceive stores a batch with one importance call and is idempotent by eventId`,
    ...opts,
    fn: async () => {
      const { model, kinds: calls } = countingModel();
      await withApp(async (app) => {
        const { a } = await town(app);
        calls.length = 0;
        const observations = [
          { text: "Klaus Mueller is reading a book about gentrification", eventId: "e1" },
          {
            text: "Maria Lopez says she will come to the Valentine's party",
            eventId: "e2",
            at: "2023-02-13T08:00:00",
          },
          { text: "the coffee machine is idle", eventId: "e3" },
        ];
        const first = await call(app, "POST", `${a}/perceive`, { observations });
        assert.equal(first.status, 200, JSON.stringify(first.body));
        assert.deepEqual(first.body.outcomes, ["created", "created", "created"]);
        assert.deepEqual(calls, ["importance"], "one batched importance call");
        const [klaus, maria, idle] = first.body.memories;
        assert.equal(idle.importance, 1);
        assert.ok(maria.importance > idle.importance);
        assert.equal(maria.createdAt, "2023-02-13T08:00:00");
        assert.equal(klaus.createdAt, "2023-02-13T07:00:00", "the world clock by default");
        assert.equal(klaus.kind, "observation");
        assert.equal(klaus.provenance, "witnessed");
        const sum = klaus.importance + maria.importance + idle.importance;
        assert.equal(first.body.importanceSinceReflection, sum);
        assert.equal(first.body.reflectionDue, false);

        calls.length = 0;
        const again = await call(app, "POST", `${a}/perceive`, { observations });
        assert.deepEqual(
          again.body.memories.map((m: { id: string }) => m.id),
          first.body.memories.map((m: { id: string }) => m.id),
        );
        assert.deepEqual(again.body.outcomes, ["existing", "existing", "existing"]);
        assert.deepEqual(calls, [], "nothing new, no model call");
        assert.equal(again.body.importanceSinceReflection, sum);
        const page = await call(app, "GET", `${a}/memories?kind=observation`);
        assert.equal(page.body.memories.length, 3);
      }, { model });
    },
  });

  Deno.test({
    name:
      `[${backend.name}] perceive stores observations without letters ("!!!", "🙂") and finds them again`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await town(app);
        const r = await call(app, "POST", `${a}/perceive`, {
          observations: [{ text: "!!!" }, { text: "🙂" }, { text: "Klaus waves 👋" }],
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.deepEqual(r.body.outcomes, ["created", "created", "created"]);
        const found = await call(app, "POST", `${a}/retrieve`, { query: "🙂", k: 10 });
        assert.equal(found.status, 200, JSON.stringify(found.body));
        type Hit = { description: string; raw: { cosine: number } };
        const closest = (found.body.memories as Hit[]).sort((x, y) => y.raw.cosine - x.raw.cosine);
        assert.equal(closest[0].description, "🙂", "the most similar memory is the same emoji");
      }),
  });

  Deno.test({
    name: `[${backend.name}] perceive stores identical text once within the retention window`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await town(app);
        const text = "Isabella is wiping the counter";
        const r = await call(app, "POST", `${a}/perceive`, {
          observations: [
            { text, at: "2023-02-13T09:00:00" },
            { text, at: "2023-02-13T09:10:00" },
          ],
        });
        assert.deepEqual(r.body.outcomes, ["created", "deduplicated"]);
        assert.equal(r.body.memories[0].id, r.body.memories[1].id);
        const soon = await call(app, "POST", `${a}/perceive`, {
          observations: [{ text, at: "2023-02-13T09:20:00" }],
        });
        assert.deepEqual(soon.body.outcomes, ["deduplicated"]);
        const later = await call(app, "POST", `${a}/perceive`, {
          observations: [{ text, at: "2023-02-13T11:00:00" }],
        });
        assert.deepEqual(later.body.outcomes, ["created"]);
        assert.notEqual(later.body.memories[0].id, r.body.memories[0].id);
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] concurrent perceives with overlapping eventIds lose and duplicate nothing`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await town(app);
        const requests = Array.from({ length: 8 }, (_, r) =>
          call(app, "POST", `${a}/perceive`, {
            observations: Array.from({ length: 5 }, (_, i) => {
              const n = (r * 3 + i) % 20; // overlapping ids across requests
              return { text: `event number ${n} happened near the park`, eventId: `ev-${n}` };
            }),
          }));
        const results = await Promise.all(requests);
        for (const r of results) assert.equal(r.status, 200, JSON.stringify(r.body));
        const idOf = new Map<string, string>();
        for (const r of results) {
          for (const m of r.body.memories) {
            const prev = idOf.get(m.eventId);
            if (prev) assert.equal(prev, m.id, `eventId ${m.eventId} maps to one memory`);
            idOf.set(m.eventId, m.id);
          }
        }
        const page = await call(app, "GET", `${a}/memories?kind=observation&limit=100`);
        assert.equal(page.body.memories.length, idOf.size);
        assert.equal(new Set(page.body.memories.map((m: { id: string }) => m.id)).size, idOf.size);
        const agent = await call(app, "GET", a);
        const total = page.body.memories.reduce(
          (s: number, m: { importance: number }) => s + m.importance,
          0,
        );
        assert.equal(
          agent.body.importanceSinceReflection,
          total,
          "the counter saw every memory once",
        );
      }),
  });

  Deno.test({
    name: `[${backend.name}] retrieve ranks by the explained score and marks results accessed`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await town(app);
        await call(app, "POST", `${a}/perceive`, {
          observations: [
            {
              text: "Sam Moore announced he is running for mayor of Smallville",
              at: "2023-02-13T08:00:00",
            },
            { text: "the bakery smells of fresh bread", at: "2023-02-13T08:05:00" },
            { text: "Tom is watering the garden", at: "2023-02-13T08:10:00" },
          ],
        });
        const at = "2023-02-13T12:00:00";
        const r = await call(app, "POST", `${a}/retrieve`, {
          query: "who is running for mayor",
          k: 3,
          at,
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(r.body.memories.length, 3);
        assert.match(r.body.memories[0].description, /running for mayor/);
        assert.deepEqual(r.body.weights, { recency: 1, importance: 1, relevance: 1 });
        for (const m of r.body.memories) {
          const c = m.components;
          assert.ok([c.recency, c.importance, c.relevance].every((v: number) => v >= 0 && v <= 1));
          assert.ok(Math.abs(m.score - (c.recency + c.importance + c.relevance)) < 1e-12);
          assert.equal(m.lastAccessedAt, at);
          assert.equal(typeof m.raw.cosine, "number");
        }
        for (let i = 1; i < r.body.memories.length; i++) {
          assert.ok(r.body.memories[i - 1].score >= r.body.memories[i].score);
        }
        const stored = await call(app, "GET", `${a}/memories/${r.body.memories[0].id}`);
        assert.equal(stored.body.lastAccessedAt, at, "retrieval updated the access time");

        const ref = await call(app, "POST", `${a}/retrieve`, {
          query: "bread",
          k: 2,
          weights: "reference",
          at,
        });
        assert.deepEqual(ref.body.weights, { recency: 0.5, importance: 2, relevance: 3 });
        for (const m of ref.body.memories) {
          const c = m.components;
          assert.ok(
            Math.abs(m.score - (0.5 * c.recency + 2 * c.importance + 3 * c.relevance)) < 1e-12,
          );
        }
        const seeds = await call(app, "POST", `${a}/retrieve`, {
          query: "cafe",
          kinds: ["seed"],
          at,
        });
        assert.ok(
          seeds.body.memories.length === 3 &&
            seeds.body.memories.every((m: { kind: string }) => m.kind === "seed"),
        );
        const budget = await call(app, "POST", `${a}/retrieve`, {
          query: "cafe",
          k: 10,
          tokenBudget: 20,
          at,
        });
        assert.ok(budget.body.memories.length >= 1 && budget.body.memories.length < 6);
      }),
  });

  Deno.test({
    name: `[${backend.name}] perceive reports reflectionDue at the world's threshold`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { a } = await town(app, { reflectionThreshold: 10 });
        const r = await call(app, "POST", `${a}/perceive`, {
          observations: [
            { text: "Isabella's best friend died in a terrible accident" },
            { text: "Isabella got married to the love of her life" },
          ],
        });
        assert.ok(r.body.importanceSinceReflection >= 10);
        assert.equal(r.body.reflectionDue, true);
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] an importance model failure stores the observation as pending and scores it later`,
    ...opts,
    fn: async () => {
      const failing = countingModel(unreachableModel());
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const { a } = await town(createApp(deps, { logger: silentLogger }));
      const down = createApp({ ...deps, model: failing.model }, { logger: silentLogger });
      const r = await call(down, "POST", `${a}/perceive`, {
        observations: [{ text: "a fire broke out at the school" }],
      });
      assert.equal(r.status, 200);
      assert.equal(r.body.importancePending, 1);
      assert.equal(r.body.memories[0].importancePending, true);
      const up = createApp({ ...deps, model: new OfflineLanguageModel({}) }, {
        logger: silentLogger,
      });
      const next = await call(up, "POST", `${a}/perceive`, {
        observations: [{ text: "Tom says hello" }],
      });
      assert.equal(next.body.importancePending, 0);
      const stored = await call(up, "GET", `${a}/memories/${r.body.memories[0].id}`);
      assert.equal(stored.body.importancePending, undefined);
      assert.ok(stored.body.importance > 1);
      assert.equal(
        next.body.importanceSinceReflection,
        stored.body.importance + next.body.memories[0].importance,
      );
    },
  });

  Deno.test({
    name: `[${backend.name}] an embedding failure returns 502 and stores nothing`,
    ...opts,
    fn: async () => {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const app = createApp(deps, { logger: silentLogger });
      const { a } = await town(app);
      const broken: Embedder = {
        info: deps.embedder.info,
        embed: () =>
          Promise.reject(
            new ModelUnavailableError("model_unavailable", "Cannot reach the embeddings endpoint"),
          ),
      };
      const down = createApp({ ...deps, embedder: broken }, { logger: silentLogger });
      const r = await call(down, "POST", `${a}/perceive`, {
        observations: [{ text: "something", eventId: "x1" }],
      });
      assert.equal(r.status, 502);
      assert.equal(r.body.error.code, "model_unavailable");
      const page = await call(app, "GET", `${a}/memories?kind=observation`);
      assert.equal(page.body.memories.length, 0);
      const retry = await call(app, "POST", `${a}/perceive`, {
        observations: [{ text: "something", eventId: "x1" }],
      });
      assert.deepEqual(retry.body.outcomes, ["created"], "the retry stores it");
    },
  });

  Deno.test({
    name: `[${backend.name}] memory routes reject bad input with JSON 4xx and keep worlds apart`,
    ...opts,
    fn: () =>
      withApp(async (app) => {
        const { w, a } = await town(app);
        const cases: [string, string, unknown, number, string][] = [
          ["POST", `${a}/perceive`, { observations: [] }, 400, "invalid_request"],
          ["POST", `${a}/perceive`, { observations: [{ text: "" }] }, 400, "invalid_request"],
          [
            "POST",
            `${a}/perceive`,
            { observations: [{ text: "x".repeat(2001) }] },
            400,
            "invalid_request",
          ],
          [
            "POST",
            `${a}/perceive`,
            { observations: Array.from({ length: 501 }, () => ({ text: "hi" })) },
            400,
            "invalid_request",
          ],
          [
            "POST",
            `${a}/perceive`,
            { observations: [{ text: "hi", at: "13/02/2023" }] },
            400,
            "invalid_request",
          ],
          ["POST", `${a}/retrieve`, { query: "x", k: 0 }, 400, "invalid_request"],
          ["POST", `${a}/retrieve`, { query: "x", k: 101 }, 400, "invalid_request"],
          ["POST", `${a}/retrieve`, { query: "x", weights: "fancy" }, 400, "invalid_request"],
          [
            "POST",
            `${a}/retrieve`,
            { query: "x", weights: { recency: 1, importance: 1, relevance: 1, mood: 2 } },
            400,
            "invalid_request",
          ],
          ["POST", `${a}/retrieve`, { query: "x", at: "yesterday" }, 400, "invalid_request"],
          [
            "POST",
            `${w}/agents/nobody/perceive`,
            { observations: [{ text: "hi" }] },
            404,
            "agent_not_found",
          ],
          [
            "POST",
            `/v1/worlds/nowhere/agents/isabella/retrieve`,
            { query: "x" },
            404,
            "world_not_found",
          ],
          ["GET", `${a}/memories/m_nope`, undefined, 404, "memory_not_found"],
          ["GET", `${a}/memories?limit=0`, undefined, 400, "invalid_request"],
        ];
        for (const [method, path, body, status, code] of cases) {
          const r = await call(app, method, path, body);
          assert.equal(
            r.status,
            status,
            `${method} ${path} ${JSON.stringify(body)?.slice(0, 80)} → ${JSON.stringify(r.body)}`,
          );
          assert.equal(r.body.error.code, code);
        }
        // The same agent id in another world is another agent: nothing leaks across.
        const { a: other } = await town(app);
        const secret = await call(app, "POST", `${a}/perceive`, {
          observations: [{ text: "the vault code is 1234" }],
        });
        const there = await call(app, "POST", `${other}/retrieve`, { query: "vault code", k: 100 });
        assert.ok(
          there.body.memories.every((m: { description: string }) =>
            !m.description.includes("vault")
          ),
        );
        const cross = await call(app, "GET", `${other}/memories/${secret.body.memories[0].id}`);
        assert.equal(cross.status, 404);
      }),
  });

  Deno.test({
    name:
      `[${backend.name}] GET …/memories pages by kind and time with a cursor, and reflections show evidence`,
    ...opts,
    fn: () =>
      withApp(async (app, deps) => {
        const { a } = await town(app);
        const obs = Array.from(
          { length: 7 },
          (_, i) => ({ text: `observation ${i}`, at: `2023-02-13T1${i}:00:00` }),
        );
        const made = await call(app, "POST", `${a}/perceive`, { observations: obs });
        const seen: string[] = [];
        let cursor: string | null = null;
        do {
          const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
          const page = await call(
            app,
            "GET",
            `${a}/memories?kind=observation&limit=3&order=asc${q}`,
          );
          assert.ok(page.body.memories.length <= 3);
          seen.push(...page.body.memories.map((m: { description: string }) => m.description));
          cursor = page.body.next;
        } while (cursor);
        assert.deepEqual(seen, obs.map((o) => o.text));
        const newest = await call(app, "GET", `${a}/memories?limit=1`);
        assert.equal(newest.body.memories[0].description, "observation 6");

        // A reflection tree stored directly (reflections arrive with the Cognition issue).
        const scope = {
          worldId: made.body.memories[0].worldId,
          agentId: made.body.memories[0].agentId,
        };
        const base = made.body.memories[0];
        const r1 = {
          ...base,
          id: "m_refl1",
          kind: "reflection",
          description: "insight one",
          evidence: [made.body.memories[1].id, made.body.memories[2].id],
          depth: 1,
          provenance: "self",
        };
        const r2 = {
          ...base,
          id: "m_refl2",
          kind: "reflection",
          description: "insight two",
          evidence: ["m_refl1", made.body.memories[3].id],
          depth: 2,
          provenance: "self",
        };
        delete r1.eventId;
        delete r2.eventId;
        await deps.storage.memories.append(scope, [r1, r2]);
        const tree = await call(app, "GET", `${a}/memories/m_refl2`);
        assert.deepEqual(
          tree.body.evidenceChain.map((m: { id: string }) => m.id).sort(),
          ["m_refl1", made.body.memories[1].id, made.body.memories[2].id, made.body.memories[3].id]
            .sort(),
        );
      }),
  });
}

Deno.test({
  name: "memory routes: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
