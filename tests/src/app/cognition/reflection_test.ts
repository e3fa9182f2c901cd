import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../../lib/offline/local_embedder.ts";
import {
  OfflineLanguageModel,
  type OfflineResponder,
} from "../../../../lib/offline/offline_language_model.ts";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { agentSummary, cachedSummary } from "../../../../src/app/cognition/agent_summary.ts";
import {
  citeInsights,
  EVIDENCE_PER_QUESTION,
  reflectIfDue,
} from "../../../../src/app/cognition/reflection.ts";
import { reflect } from "../../../../src/app/reflect.ts";
import { inAgentTransaction } from "../../../_helpers/agent_transaction.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { ModelUnavailableError } from "../../../../src/domain/errors.ts";
import type { AgentScope, MemoryId, WorldId } from "../../../../src/domain/ids.ts";
import { getMemory } from "../../../../src/app/memory/listing.ts";
import type { MemoryRecord } from "../../../../src/domain/memory/memory_record.ts";
import { perceive } from "../../../../src/app/perceive.ts";
import type { UsageRecord } from "../../../../src/domain/usage.ts";
import type { Embedder } from "../../../../src/ports/embedder.ts";
import type { LanguageModel } from "../../../../src/ports/language_model.ts";
import { CreateWorldInput, type World } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";

const AT = "2023-02-13T12:00:00";

/** The offline model with some prompt kinds answered by the test, recording every call. */
function scripted(responders: Record<string, OfflineResponder> = {}) {
  const usage: UsageRecord[] = [];
  const inner = new OfflineLanguageModel({ responders, onUsage: (u) => void usage.push(u) });
  return { ...countingModel(inner), usage };
}

/** The test deps' embedder, recording each call's operation and batch size. */
function countingEmbedder(inner: Embedder, failOn?: string) {
  const calls: { operation: string; texts: number }[] = [];
  const embedder: Embedder = {
    info: inner.info,
    embed(texts, attribution) {
      calls.push({ operation: attribution.operation, texts: texts.length });
      if (attribution.operation === failOn) {
        return Promise.reject(
          new ModelUnavailableError("model_unavailable", "Cannot reach the embeddings endpoint"),
        );
      }
      return inner.embed(texts, attribution);
    },
  };
  return { embedder, calls };
}

/**
 * A world (autoReflect off, so perceive leaves reflecting to the test) with Klaus, 2 seeds and
 * 4 observations whose importance makes a reflection due at the threshold of 10.
 */
async function town(overrides: Partial<Deps> = {}, settings: Record<string, unknown> = {}) {
  const deps = await makeTestDeps(overrides);
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({
      name: "T",
      startTime: "2023-02-13T07:00:00",
      settings: { reflectionThreshold: 10, autoReflect: false, ...settings },
    }),
  );
  const worldId = world.id as WorldId;
  const { agent } = await createAgent(deps, worldId, {
    name: "Klaus Mueller",
    description:
      "Klaus Mueller is a student of sociology at Oak Hill College; Klaus Mueller is writing a research paper on gentrification",
  });
  const perceived = await perceive(deps, { worldId, agentId: agent.id }, {
    observations: [
      { text: "Klaus Mueller is reading a book on gentrification", at: "2023-02-13T08:00:00" },
      {
        text: "Klaus Mueller talks with Maria Lopez about her physics research",
        at: "2023-02-13T09:00:00",
      },
      { text: "Maria Lopez won a national physics prize", at: "2023-02-13T10:00:00" },
      { text: "the desk at the library is unoccupied", at: "2023-02-13T11:00:00" },
    ],
  });
  const scope: AgentScope = { worldId, agentId: agent.id };
  return {
    deps,
    world: { ...world, id: worldId } as World,
    scope,
    counter: perceived.importanceSinceReflection,
    async [Symbol.asyncDispose]() {
      await deps[Symbol.asyncDispose]();
    },
  };
}

function byDescription(memories: readonly MemoryRecord[]): Map<string, MemoryId> {
  return new Map(memories.map((m) => [m.description, m.id]));
}

Deno.test("reflect() maps cited numbers to the memories shown, drops citations that point nowhere and discards insights left without evidence", async () => {
  const shown: string[][] = [];
  const { model } = scripted({
    reflection_insights: (input) => {
      const { memories, questions } = input as { memories: string[]; questions: string[] };
      shown.push(memories);
      return {
        answers: questions.map((_, q) => ({
          insights: [
            {
              insight: "Klaus Mueller cares deeply about his studies",
              evidence: [1 + q, 3, 3, 0, 99, -2],
            },
            { insight: "An insight resting on nothing real", evidence: [42, 0] },
            { insight: "An insight citing nothing", evidence: [] },
          ],
        })),
      };
    },
  });
  await using t = await town({ model });
  const before = await t.deps.storage.memories.all(t.scope);
  const { reflections, questions } = await reflect(t.deps, t.scope, {
    at: AT,
  });
  assert.equal(questions.length, 3);
  assert.equal(shown.length, 1, "one insights call for the three questions");
  assert.equal(shown[0].length, before.length, "k covers all 6 memories, each shown once");
  // The same insight from three questions is stored once, with every memory it cited.
  assert.equal(reflections.length, 1);
  const [r] = reflections;
  const idOf = byDescription(before);
  const list = shown[0];
  const expected = [list[0], list[2], list[1]].map((m) => idOf.get(m)!);
  assert.deepEqual(r.evidence, expected);
  assert.equal(r.kind, "reflection");
  assert.equal(r.provenance, "self");
  assert.equal(r.depth, 1);
  assert.equal(r.createdAt, AT);
  assert.equal(r.description, "Klaus Mueller cares deeply about his studies");
  const stored = await t.deps.storage.memories.all(t.scope);
  assert.equal(stored.length, before.length + 1);
});

Deno.test("citeInsights() dedupes by text (case and spacing), merges evidence and takes the deepest evidence's depth", () => {
  const memory = (id: string, kind: MemoryRecord["kind"], depth?: number) =>
    ({ id, kind, description: id, ...(depth === undefined ? {} : { depth }) }) as MemoryRecord;
  const shown = [
    memory("o1", "observation"),
    memory("r1", "reflection", 1),
    memory("o2", "chat"),
    memory("r2", "reflection", 2),
    memory("r0", "reflection"),
  ];
  const cited = citeInsights(shown, [
    { insights: [{ insight: "Klaus loves research", evidence: [1] }] },
    {
      insights: [
        { insight: "  klaus  LOVES research ", evidence: [3, 4, 7] },
        { insight: "Old reflections count as depth 1", evidence: [5] },
        { insight: "Nothing real", evidence: [6] },
      ],
    },
  ]);
  assert.deepEqual(cited, [
    { description: "Klaus loves research", evidence: ["o1", "o2", "r2"], depth: 3 },
    { description: "Old reflections count as depth 1", evidence: ["r0"], depth: 2 },
  ]);
  assert.deepEqual(citeInsights(shown, [null, { insights: [] }]), []);
});

Deno.test("reflect() builds trees: a reflection citing an earlier reflection is one level deeper", async () => {
  let level = 1;
  const { model } = scripted({
    reflection_insights: (input) => {
      const { memories, questions } = input as { memories: string[]; questions: string[] };
      const previous = memories.indexOf(`Level ${level - 1} insight`);
      const observation = memories.findIndex((m) => m.includes("gentrification"));
      return {
        answers: questions.map((_, q) => ({
          insights: q > 0 ? [] : [
            {
              insight: `Level ${level} insight`,
              evidence: previous === -1 ? [observation + 1] : [previous + 1, observation + 1],
            },
            { insight: `Plain insight ${level}`, evidence: [observation + 1] },
          ],
        })),
      };
    },
  });
  await using t = await town({ model });
  const levels: MemoryRecord[] = [];
  for (; level <= 3; level++) {
    const { reflections } = await reflect(t.deps, t.scope, {
      force: true,
      at: `2023-02-13T1${level + 1}:00:00`,
    });
    const byText = new Map(reflections.map((r) => [r.description, r]));
    assert.equal(byText.get(`Plain insight ${level}`)?.depth, 1, "observations only: depth 1");
    const deep = byText.get(`Level ${level} insight`)!;
    assert.equal(deep.depth, level, `level ${level}`);
    if (level > 1) assert.ok(deep.evidence!.includes(levels[level - 2].id));
    levels.push(deep);
  }
  const chain = await getMemory(t.deps, t.scope, levels[2].id);
  const chainIds = chain.evidenceChain!.map((m) => m.id);
  assert.ok(chainIds.includes(levels[1].id) && chainIds.includes(levels[0].id));
  assert.ok(chain.evidenceChain!.some((m) => m.kind !== "reflection"), "down to the leaves");
});

Deno.test("reflect() resets the counter and marks the agent summary stale", async () => {
  await using t = await town();
  const before = (await loadAgent(t.deps, t.scope)).value;
  assert.ok(before.importanceSinceReflection >= 10, "due");
  await agentSummary(t.deps, { world: t.world, agent: before, at: AT });
  assert.equal((await cachedSummary(t.deps, before))?.stale, false);

  const { reflections } = await reflect(t.deps, t.scope, { at: AT });
  assert.ok(reflections.length > 0);
  const after = (await loadAgent(t.deps, t.scope)).value;
  assert.equal(after.importanceSinceReflection, 0);
  assert.deepEqual(after.pendingImportance, []);
  assert.equal((await cachedSummary(t.deps, after))?.stale, true);
});

Deno.test("reflect() and reflectIfDue() make no model call when not due", async (t) => {
  const { model, kinds } = scripted();
  await using s = await town({ model }, { reflectionThreshold: 1000 });
  kinds.length = 0;
  const agent = (await loadAgent(s.deps, s.scope)).value;

  await t.step("reflect() without force", async () => {
    const r = await reflect(s.deps, s.scope, { at: AT });
    assert.deepEqual(r, {
      reflections: [],
      questions: [],
      usage: { calls: 0, promptTokens: 0, completionTokens: 0 },
    });
    assert.deepEqual(kinds, []);
    assert.equal((await loadAgent(s.deps, s.scope)).value.importanceSinceReflection, s.counter);
  });
  await t.step("reflectIfDue() below the threshold, or with autoReflect off", async () => {
    assert.deepEqual(
      (await inAgentTransaction(
        s.deps,
        { world: s.world, agent },
        (tx) => reflectIfDue(s.deps, tx, AT),
      )).reflections,
      [],
    );
    const due = { ...s.world, settings: { ...s.world.settings, reflectionThreshold: 5 } };
    const off = { ...due, settings: { ...due.settings, autoReflect: false } };
    assert.deepEqual(
      (await inAgentTransaction(
        s.deps,
        { world: off, agent },
        (tx) => reflectIfDue(s.deps, tx, AT),
      )).reflections,
      [],
    );
    assert.deepEqual(kinds, []);
    const on = { ...due, settings: { ...due.settings, autoReflect: true } };
    assert.ok(
      (await inAgentTransaction(s.deps, { world: on, agent }, (tx) => reflectIfDue(s.deps, tx, AT)))
        .reflections.length > 0,
    );
    assert.equal(kinds[0], "reflection_questions");
  });
});

Deno.test("reflect() writes nothing when a model call fails", async (t) => {
  await t.step("malformed insights: model_invalid_output", async () => {
    let call = 0;
    const { model } = scripted({
      reflection_insights: () => {
        if (++call === 1) throw new Error("unusable answer");
        return { answers: [] };
      },
    });
    await using s = await town({ model });
    const before = await s.deps.storage.memories.all(s.scope);
    await assert.rejects(
      reflect(s.deps, s.scope, { at: AT }),
      (err: unknown) => err instanceof ModelUnavailableError && err.code === "model_invalid_output",
    );
    const after = await s.deps.storage.memories.all(s.scope);
    assert.deepEqual(after.map((m) => m.id), before.map((m) => m.id));
    assert.equal((await loadAgent(s.deps, s.scope)).value.importanceSinceReflection, s.counter);
  });
  await t.step("the insights' embedding call fails: nothing stored, counter kept", async () => {
    const { embedder } = countingEmbedder(new LocalEmbedder({ dimensions: 384 }), "embedding");
    await using s = await town();
    const broken = { ...s.deps, embedder };
    const before = await s.deps.storage.memories.count(s.scope);
    await assert.rejects(
      reflect(broken, s.scope, { at: AT }),
      (err: unknown) => err instanceof ModelUnavailableError && err.code === "model_unavailable",
    );
    assert.equal(await s.deps.storage.memories.count(s.scope), before);
    assert.equal((await loadAgent(s.deps, s.scope)).value.importanceSinceReflection, s.counter);
  });
  await t.step(
    "the importance call fails: reflections stored as pending, scored later",
    async () => {
      await using s = await town();
      const down: LanguageModel = {
        info: s.deps.model.info,
        complete: (prompt, attribution) =>
          prompt.kind === "importance"
            ? Promise.reject(
              new ModelUnavailableError("model_unavailable", "Cannot reach the model"),
            )
            : s.deps.model.complete(prompt, attribution),
      };
      const { reflections } = await reflect(
        { ...s.deps, model: down },
        s.scope,
        { at: AT },
      );
      assert.ok(reflections.length > 0 && reflections.every((r) => r.importancePending));
      const agent = (await loadAgent(s.deps, s.scope)).value;
      assert.equal(agent.importanceSinceReflection, 0);
      assert.deepEqual(agent.pendingImportance, reflections.map((r) => r.id));
      // The next perceive scores them with its own batch.
      await perceive(s.deps, s.scope, {
        observations: [{ text: "Klaus Mueller drinks a coffee", at: AT }],
      });
      assert.deepEqual((await loadAgent(s.deps, s.scope)).value.pendingImportance, []);
      const scored = await s.deps.storage.memories.get(s.scope, reflections[0].id);
      assert.equal(scored?.importancePending, undefined);
    },
  );
});

Deno.test("reflect() call budget: 3 questions cost 3 completions and 2 embedding calls", async () => {
  const { model, kinds, usage } = scripted();
  const { embedder, calls } = countingEmbedder(new LocalEmbedder({ dimensions: 384 }));
  await using t = await town({ model, embedder });
  kinds.length = 0;
  calls.length = 0;
  usage.length = 0;
  const { reflections, usage: total } = await reflect(t.deps, t.scope, {
    at: AT,
  });
  // 1 questions call (main) → 1 insights call (main, every question at once) → 1 importance
  // call (fast) for every insight at once.
  assert.deepEqual(kinds, ["reflection_questions", "reflection_insights", "importance"]);
  // 1 embedding call for the 3 questions together (recall), 1 for the insights to store.
  assert.deepEqual(calls, [
    { operation: "recall.query", texts: 3 },
    { operation: "embedding", texts: reflections.length },
  ]);
  // The local embedder is free, so the response's usage counts the 3 completions only.
  assert.equal(total.calls, 3);
  assert.equal(total.promptTokens, usage.reduce((s, u) => s + u.promptTokens, 0));
  assert.equal(total.completionTokens, usage.reduce((s, u) => s + u.completionTokens, 0));
  assert.deepEqual(usage.map((u) => u.operation), [
    "reflection.questions",
    "reflection.insights",
    "importance",
  ]);
  // With 6 memories every question sees all of them; EVIDENCE_PER_QUESTION bounds larger streams.
  assert.equal(EVIDENCE_PER_QUESTION, 18);
  assert.ok(total.promptTokens < 3_000, `prompt tokens ${total.promptTokens}`);
});
