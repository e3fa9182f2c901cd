import assert from "node:assert/strict";
import { inTransaction } from "../../../_helpers/agent_transaction.ts";
import {
  OfflineLanguageModel,
  type OfflineResponder,
} from "../../../../lib/offline/offline_language_model.ts";
import { LocalEmbedder } from "../../../../lib/offline/local_embedder.ts";
import { type Agent, CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { invalidateSummary } from "../../../../src/app/cognition/agent_summary.ts";
import type { Conversation } from "../../../../src/domain/conversation/conversation.ts";
import { readConversationState } from "../../../../src/app/cognition/conversation_state.ts";
import { converse } from "../../../../src/app/cognition/dialogue.ts";
import { makeDayPlan } from "../../../../src/app/cognition/planning.ts";
import type { DayPlan } from "../../../../src/domain/plan/plan.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { ModelUnavailableError, SimulacraError } from "../../../../src/domain/errors.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import type { GameTime } from "../../../../src/domain/time/game_time.ts";
import type { Embedder } from "../../../../src/ports/embedder.ts";
import type { LanguageModel } from "../../../../src/ports/language_model.ts";
import { CreateWorldInput, type World } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";

const AT = "2023-02-13T16:56:00";

/** The offline model, recording the kind of every call. */
function counting(responders: Record<string, OfflineResponder> = {}) {
  return countingModel(new OfflineLanguageModel({ responders }));
}

function tally(kinds: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of kinds) out[k] = (out[k] ?? 0) + 1;
  return out;
}

async function family(
  deps: Deps,
  settings: Record<string, unknown> = {},
): Promise<{ world: World; john: Agent; eddy: Agent }> {
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ name: "Lin house", startTime: "2023-02-13T07:00:00", settings }),
  );
  const john = await createAgent(
    deps,
    world.id as WorldId,
    CreateAgentInput.parse({
      id: "john",
      name: "John Lin",
      age: 45,
      description:
        "John Lin is a pharmacy shopkeeper; John Lin is Eddy Lin's father; John Lin is curious about Eddy's music",
    }),
  );
  const eddy = await createAgent(
    deps,
    world.id as WorldId,
    CreateAgentInput.parse({
      id: "eddy",
      name: "Eddy Lin",
      age: 19,
      description:
        "Eddy Lin is a student studying music theory; Eddy Lin is working on a music composition for class",
    }),
  );
  return { world, john: john.agent, eddy: eddy.agent };
}

/** The two agents talk at {@linkcode AT} in one transaction, the initiator first. */
function converseAt(deps: Deps, world: World, agents: [Agent, Agent]) {
  return inTransaction(deps, { world, agents }, (tx) => converse(deps, tx, { at: AT }));
}

async function chats(deps: Deps, world: World, agent: Agent) {
  const page = await deps.storage.memories.list(
    { worldId: world.id as WorldId, agentId: agent.id },
    { kind: "chat", limit: 100, order: "asc" },
  );
  return page.memories;
}

Deno.test("converse() alternates speakers, ends by a speaker and lands in both streams", async () => {
  const { model } = counting();
  await using deps = await makeTestDeps({ model });
  const { world, john, eddy } = await family(deps);
  const talk = await inTransaction(
    deps,
    { world, agents: [eddy, john] },
    (tx) => converse(deps, tx, { topic: "the composition", at: AT }),
  );

  // Nobody has news to pass on: the offline replier says goodbye on its second line: 4 lines,
  // one game minute each.
  assert.equal(talk.endedBy, "other");
  assert.deepEqual(talk.lines.map((l) => l.speaker), ["eddy", "john", "eddy", "john"]);
  assert.deepEqual(talk.lines.map((l) => l.at.slice(11, 16)), [
    "16:56",
    "16:57",
    "16:58",
    "16:59",
  ]);
  assert.equal(talk.startedAt, AT);
  assert.equal(talk.endedAt, "2023-02-13T17:00:00");
  assert.match(talk.lines[0].text, /John\b.* I wanted to talk about the composition\.$/);
  assert.deepEqual(talk.participants, ["eddy", "john"]);
  assert.deepEqual(talk.replanFailed, []);

  for (const [self, other] of [[john, eddy], [eddy, john]]) {
    const memories = await chats(deps, world, self);
    assert.equal(memories.length, 4, self.name);
    memories.forEach((m, i) => {
      const line = talk.lines[i];
      assert.equal(m.createdAt, line.at);
      assert.ok(m.description.includes(line.text));
      assert.equal(m.provenance, line.speaker === self.id ? "self" : `told_by:${other.name}`);
    });
    const state = await readConversationState(deps, world, self.id);
    assert.equal(state?.conversationId, talk.id);
    assert.equal(state?.until, talk.endedAt);
    assert.equal(state?.lastTalked[other.id], talk.endedAt);
    const counters = (await loadAgent(deps, { worldId: world.id as WorldId, agentId: self.id }))
      .value;
    assert.equal(
      counters.importanceSinceReflection,
      memories.reduce((s, m) => s + m.importance, 0),
      "chat importance counts towards reflection",
    );
  }
  // Both re-planned the rest of the day from the end of the talk (the planner's document).
  for (const [self, other] of [[john, eddy], [eddy, john]]) {
    const plan = await deps.storage.documents.get<DayPlan>({
      collection: "plans",
      scope: world.id,
      id: `${self.id}:2023-02-13`,
    });
    const said = talk.lines.filter((l) => l.speaker === other.id).map((l) => l.text).join(" ");
    assert.deepEqual(plan?.value.replans, [{
      from: talk.endedAt,
      reason: `talked with ${other.name} about the composition; ${other.name} said: “${said}”`,
    }], "the re-plan is told what the other said");
  }
  const stored = await deps.storage.documents.get<Conversation>({
    collection: "conversations",
    scope: world.id,
    id: talk.id,
  });
  assert.deepEqual(stored?.value.lines, talk.lines);
  assert.equal(stored?.value.endedBy, "other");
});

Deno.test("converse() stops at the turn cap per speaker", async () => {
  const { model } = counting({ dialogue_line: () => ({ line: "Go on.", end: false }) });
  await using deps = await makeTestDeps({ model });
  const { world, john, eddy } = await family(deps, { conversationTurnCap: 3 });
  const talk = await converseAt(deps, world, [john, eddy]);
  assert.equal(talk.endedBy, "turn_cap");
  assert.equal(talk.lines.length, 6);
  assert.equal(talk.topic, null);
});

Deno.test("converse() records who ended it: the initiator", async () => {
  const { model } = counting({
    dialogue_line: (input) => ({
      line: "Bye for now.",
      end: (input as { history: unknown[] }).history.length === 2,
    }),
  });
  await using deps = await makeTestDeps({ model });
  const { world, john, eddy } = await family(deps);
  const talk = await converseAt(deps, world, [john, eddy]);
  assert.equal(talk.endedBy, "initiator");
  assert.deepEqual(talk.lines.map((l) => l.speaker), ["john", "eddy", "john"]);
});

Deno.test("converse() keeps the conversation when a re-plan fails, and says whose", async () => {
  const inner = new OfflineLanguageModel();
  const model: LanguageModel = {
    info: inner.info,
    complete(prompt, attribution) {
      if (prompt.kind === "day_plan") {
        return Promise.reject(new ModelUnavailableError("model_unavailable", "Cannot plan"));
      }
      return inner.complete(prompt, attribution);
    },
  };
  await using deps = await makeTestDeps({ model });
  const { world, john, eddy } = await family(deps);
  const talk = await converseAt(deps, world, [john, eddy]);
  assert.deepEqual(talk.replanFailed.toSorted(), ["eddy", "john"]);
  assert.equal((await chats(deps, world, john)).length, talk.lines.length);
  assert.equal((await readConversationState(deps, world, eddy.id))?.conversationId, talk.id);
});

Deno.test("converse() refuses an agent talking to itself", async () => {
  await using deps = await makeTestDeps();
  const { world, john } = await family(deps);
  await assert.rejects(
    converseAt(deps, world, [john, john]),
    (err: unknown) => err instanceof SimulacraError && err.code === "invalid_request",
  );
});

Deno.test("converse() starts after a participant's earlier conversation, and crossed pairs do not deadlock", async () => {
  await using deps = await makeTestDeps();
  const { world, john, eddy } = await family(deps);
  const mei = (await createAgent(
    deps,
    world.id as WorldId,
    CreateAgentInput.parse({
      id: "mei",
      name: "Mei Lin",
      description: "Mei Lin is a professor; Mei Lin is Eddy Lin's mother",
    }),
  )).agent;
  // Opposite lock orders if the locks were taken by role: john→eddy and eddy→john, plus mei.
  const talks = await Promise.all([
    converseAt(deps, world, [john, eddy]),
    converseAt(deps, world, [eddy, john]),
    converseAt(deps, world, [mei, eddy]),
  ]);
  const byStart = [...talks].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  for (let i = 1; i < byStart.length; i++) {
    assert.ok(byStart[i].startedAt >= byStart[i - 1].endedAt, "eddy's talks never overlap");
  }
});

Deno.test("converse() fails with conflict when a participant stays busy past the lock wait", async () => {
  await using deps = await makeTestDeps({ sleep: () => Promise.resolve() });
  const { world, john, eddy } = await family(deps);
  const lease = await deps.storage.locks.acquire(`agent:${world.id}:eddy`, 60_000);
  assert.ok(lease);
  try {
    await assert.rejects(
      converseAt(deps, world, [john, eddy]),
      (err: unknown) => err instanceof SimulacraError && err.code === "conflict",
    );
  } finally {
    await deps.storage.locks.release(lease);
  }
  assert.equal((await chats(deps, world, john)).length, 0);
});

Deno.test("converse() writes no memories for either participant when an embedding fails", async () => {
  const local = new LocalEmbedder({ dimensions: 384 });
  let failFor: string | null = null;
  const embedder: Embedder = {
    info: local.info,
    embed(texts, attribution) {
      if (attribution.operation === "embedding" && attribution.agentId === failFor) {
        return Promise.reject(new ModelUnavailableError("model_unavailable", "Cannot embed"));
      }
      return local.embed(texts, attribution);
    },
  };
  await using deps = await makeTestDeps({ embedder });
  const { world, john, eddy } = await family(deps);
  failFor = "john"; // the second participant prepared
  await assert.rejects(
    converseAt(deps, world, [eddy, john]),
    (err: unknown) => err instanceof ModelUnavailableError,
  );
  assert.equal((await chats(deps, world, eddy)).length, 0);
  assert.equal((await chats(deps, world, john)).length, 0);
  assert.equal(await readConversationState(deps, world, eddy.id), null);
});

Deno.test("converse() leaves no transcript, memories or vectors for either participant when the second write fails", async () => {
  await using deps = await makeTestDeps();
  const { world, john, eddy } = await family(deps);
  const memories = deps.storage.memories;
  const append = memories.append.bind(memories);
  memories.append = (scope, records, options) =>
    scope.agentId === john.id && records.some((r) => r.kind === "chat")
      ? Promise.reject(new Error("disk full"))
      : append(scope, records, options);
  await assert.rejects(
    converseAt(deps, world, [eddy, john]),
    /disk full/,
  );
  for (const agent of [eddy, john]) {
    assert.equal((await chats(deps, world, agent)).length, 0, agent.id);
    const scope = { worldId: world.id as WorldId, agentId: agent.id };
    const records = (await deps.storage.memories.all(scope)).map((m) => m.id).sort();
    const vectors = (await deps.storage.vectors.ids(scope)).sort();
    assert.deepEqual(vectors, records, `${agent.id}: a vector for each memory, no other`);
  }
  assert.equal(await readConversationState(deps, world, eddy.id), null);
  assert.deepEqual(
    await deps.storage.documents.list("conversations", world.id),
    [],
    "no transcript",
  );
});

Deno.test("converse() call budget: a 4-line dialogue", async (t) => {
  const { model, kinds } = counting();
  await using deps = await makeTestDeps({ model });
  // Cap 2 per speaker; the offline replier ends on its last allowed line: 4 lines in all.
  const { world, john, eddy } = await family(deps, { conversationTurnCap: 2 });
  const talk = (at: GameTime) =>
    inTransaction(
      deps,
      { world, agents: [john, eddy] },
      (tx) => converse(deps, tx, { topic: "music", at }),
    );

  await t.step("day plans made, summaries stale", async () => {
    for (const agent of [john, eddy]) {
      await makeDayPlan(deps, { world, agent: agent }, { date: "2023-02-13" });
      await invalidateSummary(deps, agent);
    }
    kinds.length = 0;
    const result = await talk(AT);
    assert.equal(result.lines.length, 4);
    // The conversation: 4 dialogue_line (main, one per line) + 2 agent_summary (main, one per
    // participant, remade because stale) + 2 importance (fast, one batch per participant's chat
    // memories) = 8. The re-plans: 1 day_plan each (the summary is cached by then, plan
    // memories have a fixed importance) = 2. In all 10; usage.calls agrees because the local
    // embedder is free.
    assert.deepEqual(tally(kinds), {
      dialogue_line: 4,
      agent_summary: 2,
      importance: 2,
      day_plan: 2,
    });
    assert.equal(result.usage.calls, 10);
  });
  await t.step("summaries cached", async () => {
    kinds.length = 0;
    await talk("2023-02-13T18:00:00");
    // 4 dialogue_line + 2 importance = 6; with the two re-plans, 8.
    assert.deepEqual(tally(kinds), { dialogue_line: 4, importance: 2, day_plan: 2 });
  });
  await t.step("no day plan yet: each re-plan makes the day first", async () => {
    kinds.length = 0;
    await talk("2023-02-14T09:00:00");
    // 4 dialogue_line + 2 importance = 6 (summaries made yesterday evening are still fresh);
    // each re-plan first makes the missing day plan (1 day_plan), then re-plans (1 day_plan):
    // 6 + 4 = 10.
    assert.deepEqual(tally(kinds), { dialogue_line: 4, importance: 2, day_plan: 4 });
  });
});
