/**
 * @module Unit tests of the Magic-If stages: anchor (per ablation), recall (kinds, k, lore,
 * touch), the prompt budget's trimming order, reply formatting, and one enacted turn's facet
 * and memory bounds.
 */
import assert from "node:assert/strict";
import { type Agent } from "../../../../src/domain/agent/agent.ts";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";
import type { AgentId, AgentScope, MemoryId } from "../../../../src/domain/ids.ts";
import { prepareMemories, writeMemories } from "../../../../src/app/memory/ingest.ts";
import type { MemoryKind } from "../../../../src/domain/memory/memory_record.ts";
import {
  type Ablation,
  anchorStage,
  CUE_TURNS,
  cuesOf,
  enactTurn,
  recallStage,
  type ReplyContext,
  type TurnRequest,
} from "../../../../src/app/persona/magic_if.ts";
import {
  formatReply,
  promptWithinBudget,
  sourceOf,
} from "../../../../src/domain/persona/reply_prompt.ts";
import { Persona, type PersonaRecord } from "../../../../src/domain/persona/persona.ts";
import type { RespondPromptInput } from "../../../../src/domain/prompts/respond.ts";
import type { GameTime } from "../../../../src/domain/time/game_time.ts";
import { type World } from "../../../../src/domain/world/world.ts";
import { getWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps, type SentPrompt } from "../../../_helpers/test_deps.ts";
import { isabellaPersona } from "../../domain/persona/_persona_fixture.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";

const AT = "2023-02-13T10:00:00" as GameTime;

interface Town {
  deps: Deps & AsyncDisposable;
  world: World;
  agent: Agent;
  scope: AgentScope;
  record: PersonaRecord;
  /** The kinds of the prompts sent since the town was set up. */
  kinds: string[];
  /** Those prompts themselves. */
  sent: SentPrompt[];
  /** Ids of the memories added, by description. */
  ids: Map<string, MemoryId>;
}

/** Isabella with her persona, one memory of each kind below and a lorebook entry about rent. */
async function town(): Promise<Town> {
  const { model, kinds, sent } = countingModel();
  const deps = await makeTestDeps({ model });
  const { id: worldId } = await coreWorld(deps, { name: "Smallville" });
  const { agent } = await createAgent(deps, worldId, {
    id: "isabella" as AgentId,
    name: "Isabella Rodriguez",
    traits: ["friendly"],
    description: "Isabella Rodriguez is the owner of Hobbs Cafe",
  });
  const scope = { worldId, agentId: agent.id };
  const added: { description: string; kind: MemoryKind }[] = [
    { description: "Isabella hung paper hearts for the party", kind: "observation" },
    { description: "Maria said the party decorations look lovely", kind: "chat" },
    { description: "Isabella believes the party will bring the town together", kind: "reflection" },
    { description: "Isabella plans to buy party decorations at noon", kind: "plan" },
    { description: "The landlord raised the cafe's rent by a third", kind: "observation" },
  ];
  const prepared = await prepareMemories(deps, agent, {
    items: added.map((m) => ({
      ...m,
      provenance: "witnessed" as const,
      at: "2023-02-13T08:00:00",
    })),
  });
  await writeMemories(deps, scope, { prepared });
  const ids = new Map(prepared.records.map((r) => [r.description, r.id]));
  const record: PersonaRecord = {
    persona: Persona.parse(isabellaPersona()),
    lore: [{
      name: "Rent",
      keys: ["landlord"],
      content: "The landlord raised the cafe's rent by a third",
      memoryId: ids.get("The landlord raised the cafe's rent by a third")!,
    }],
    card: null,
  };
  kinds.length = 0;
  sent.length = 0;
  return {
    deps,
    world: await getWorld(deps, worldId),
    agent: (await loadAgent(deps, scope)).value,
    scope,
    record,
    kinds,
    sent,
    ids,
  };
}

/** A reply context with a description anchor (no model call to make one). */
function contextOf(t: Town, ablation: Ablation = "full"): ReplyContext {
  return {
    world: t.world,
    agent: t.agent,
    record: t.record,
    at: AT,
    ablation,
    anchor: {
      summary: t.agent.description,
      source: "description",
      coreTraits: [],
      doing: null,
      plan: [],
    },
  };
}

/** A turn whose dialogue vector is the embedding of the message. */
async function turnOf(
  t: Town,
  message: string,
  options: Partial<TurnRequest["options"]> & { touch?: boolean } = {},
): Promise<TurnRequest> {
  const { vectors } = await t.deps.embedder.embed([message], { operation: "test" });
  return {
    mode: "chat",
    speaker: { name: "Maria Lopez", description: null },
    history: [],
    message,
    vector: vectors[0],
    relevance: [0, 0, 0],
    touch: options.touch ?? false,
    options: {
      facets: options.facets ?? 2,
      memories: options.memories ?? 10,
      tokenBudget: options.tokenBudget ?? 8000,
    },
  };
}

Deno.test("anchorStage() with no_memory anchors on identity and description, with no model call", async () => {
  const t = await town();
  await using _ = t.deps;
  const { anchor, usage } = await anchorStage(t.deps, { ...contextOf(t, "no_memory") });
  assert.equal(anchor.source, "description");
  assert.match(anchor.summary, /Isabella Rodriguez/);
  assert.match(anchor.summary, /owner of Hobbs Cafe/);
  assert.deepEqual(anchor.coreTraits, ["hospitable", "organized", "optimistic", "proud"]);
  assert.equal(anchor.doing, null);
  assert.deepEqual(anchor.plan, []);
  assert.equal(usage.calls, 0);
  assert.deepEqual(t.kinds, []);
});

Deno.test("anchorStage() uses the cached summary and shows what the agent does unless plans are ablated", async () => {
  const t = await town();
  await using _ = t.deps;
  const busy = { ...contextOf(t), agent: { ...t.agent, action: "serving coffee" } };
  const full = await anchorStage(t.deps, busy);
  assert.equal(full.anchor.source, "summary");
  assert.equal(full.anchor.doing, "serving coffee");
  assert.deepEqual(t.kinds, ["agent_summary"]);
  const again = await anchorStage(t.deps, busy);
  assert.equal(again.anchor.summary, full.anchor.summary);
  assert.equal(t.kinds.length, 1, "the summary is cached");
  const noPlans = await anchorStage(t.deps, { ...busy, ablation: "no_reflection_no_plan" });
  assert.equal(noPlans.anchor.doing, null);
  assert.deepEqual(noPlans.anchor.plan, []);
  const noReflection = await anchorStage(t.deps, { ...busy, ablation: "no_reflection" });
  assert.equal(noReflection.anchor.doing, "serving coffee");
});

Deno.test("cuesOf() looks only at the last few turns and the message", () => {
  const history = Array.from({ length: CUE_TURNS + 3 }, (_, i) => ({
    speaker: "Maria",
    text: `turn ${i}`,
  }));
  const cues = cuesOf(history, "hello");
  assert.equal(cues.message, "hello");
  assert.equal(cues.history.split("\n").length, CUE_TURNS);
  assert.doesNotMatch(cues.history, /turn 2\b/);
  assert.match(cues.history, new RegExp(`Maria: turn ${CUE_TURNS + 2}$`));
});

Deno.test("recallStage() keeps to the kinds each ablation allows", async () => {
  const t = await town();
  await using _ = t.deps;
  const turn = await turnOf(t, "How is the party coming along?");
  const kindsFor = async (ablation: Ablation) => {
    const ctx = contextOf(t, ablation);
    const recalled = await recallStage(t.deps, ctx, turn);
    return new Set(recalled.map((r) => r.memory.kind));
  };
  const full = await kindsFor("full");
  assert.ok(full.has("reflection") && full.has("plan") && full.has("chat"));
  assert.deepEqual(await kindsFor("no_memory"), new Set());
  const noReflection = await kindsFor("no_reflection");
  assert.ok(!noReflection.has("reflection") && noReflection.has("plan"));
  const noPlan = await kindsFor("no_reflection_no_plan");
  assert.ok(!noPlan.has("reflection") && !noPlan.has("plan") && noPlan.has("observation"));
});

Deno.test("recallStage() puts lore a key calls up first, bounds retrieval by k and touches only when asked", async () => {
  const t = await town();
  await using _ = t.deps;
  const rent = t.ids.get("The landlord raised the cafe's rent by a third")!;
  const turn = await turnOf(t, "Did the landlord call about the party?", { memories: 2 });
  const recalled = await recallStage(t.deps, contextOf(t), turn);
  assert.equal(recalled[0].via, "lore");
  assert.equal(recalled[0].score, null);
  assert.equal(recalled[0].memory.id, rent);
  const retrieved = recalled.filter((r) => r.via === "retrieval");
  assert.equal(retrieved.length, 2, "k memories besides the lore");
  assert.ok(retrieved.every((r) => r.memory.id !== rent), "lore is not repeated");
  assert.ok(retrieved.every((r) => typeof r.score === "number" && Number.isFinite(r.score)));
  const untouched = await t.deps.storage.memories.getMany(t.scope, [rent]);
  assert.notEqual(untouched[0]!.lastAccessedAt, AT, "a turn without touch marks nothing");

  const touching = { ...turn, touch: true };
  const marked = await recallStage(t.deps, contextOf(t), touching);
  const stored = await t.deps.storage.memories.getMany(t.scope, marked.map((r) => r.memory.id));
  assert.ok(stored.every((m) => m!.lastAccessedAt === AT));

  const none = await recallStage(t.deps, contextOf(t), {
    ...turn,
    options: { ...turn.options, memories: 0 },
  });
  assert.deepEqual(none, []);
  const silent = { ...turn, vector: new Float32Array(turn.vector!.length) };
  const loreOnly = await recallStage(t.deps, contextOf(t), silent);
  assert.deepEqual(loreOnly.map((r) => r.via), ["lore"], "a zero vector ranks nothing");
});

function respondInput(overrides: Partial<RespondPromptInput> = {}): RespondPromptInput {
  const facet = {
    title: "Party host",
    time_scope: [],
    situation: "Planning a party",
    social_role: ["host"],
    emotional_state: "excited",
    behavior_pattern: "Hands out invitations",
    thinking_pattern: "",
    conflict_with_core: "",
  };
  return {
    agentName: "Isabella Rodriguez",
    mode: "chat",
    speaker: null,
    now: AT,
    anchor: {
      summary: "Runs Hobbs Cafe.",
      nickname: "Izzy",
      globalSummary: "Owner of Hobbs Cafe.",
      coreTraits: [{ trait: "hospitable", desc: "Welcomes everyone" }],
      relationships: [{ name: "Maria Lopez", relationship: "friend", attitude: "warm" }],
    },
    facets: [facet, { ...facet, title: "Behind the counter" }, { ...facet, title: "Money" }],
    memories: Array.from({ length: 6 }, (_, i) => ({
      text: `memory ${i}: ${"something that happened at the cafe ".repeat(4)}`,
      when: AT,
      source: "witnessed by the character",
    })),
    plan: [],
    cardNotes: ["Speaks warmly.", "Uses short sentences."],
    history: Array.from({ length: 10 }, (_, i) => ({
      speaker: i % 2 ? "Isabella Rodriguez" : "Maria Lopez",
      text: `line ${i}: ${"we talked about the party at length ".repeat(3)}`,
    })),
    message: "How are you?",
    boundaryHints: [],
    disclosure: false,
    ...overrides,
  };
}

Deno.test("promptWithinBudget() trims old turns first, then card notes, then weaker memories", () => {
  const input = respondInput();
  const roomy = promptWithinBudget(input, 100_000);
  assert.deepEqual(roomy.budget.trimmed, { history: 0, memories: 0, facets: 0, cardNotes: 0 });
  const needed = roomy.budget.estimatedTokens;

  const tight = promptWithinBudget(input, needed - 200);
  assert.ok(tight.budget.estimatedTokens <= needed - 200);
  assert.ok(tight.budget.trimmed.history > 0);
  assert.deepEqual(
    { ...tight.budget.trimmed, history: 0 },
    { history: 0, memories: 0, facets: 0, cardNotes: 0 },
    "only turns go while old turns can",
  );
  const sent = tight.prompt.input as RespondPromptInput;
  assert.equal(sent.history.at(-1)!.text, input.history.at(-1)!.text, "the latest turns stay");

  // Just under what the prompt needs with two turns and no card notes: memories go next.
  const lean = { ...input, history: input.history.slice(-2), cardNotes: [] };
  const leanTokens = promptWithinBudget(lean, 100_000).budget.estimatedTokens;
  const tighter = promptWithinBudget(input, leanTokens - 1);
  const t = tighter.budget.trimmed;
  assert.equal(t.history, 8, "history down to the last two turns first");
  assert.equal(t.cardNotes, 2, "then the card notes");
  assert.equal(t.memories, 1, "then the weakest memory, one at a time");
  assert.equal(t.facets, 0);
  const kept = (tighter.prompt.input as RespondPromptInput).memories;
  assert.deepEqual(kept.map((m) => m.text), input.memories.slice(0, 5).map((m) => m.text));
});

Deno.test("promptWithinBudget() refuses a budget the bare prompt cannot meet", () => {
  assert.throws(
    () => promptWithinBudget(respondInput(), 50),
    (e: unknown) =>
      e instanceof SimulacraError && e.code === "unprocessable" &&
      (e.details as { tokenBudget: number }).tokenBudget === 50,
  );
});

Deno.test("formatReply() writes Name: (actions) words [thoughts] and drops a name the model added", () => {
  const value = (reply: string, actions: string | null, thoughts: string | null) => ({
    reply,
    actions,
    thoughts,
    bounded: false,
    importance: 3,
  });
  assert.equal(
    formatReply("Isabella", value('Isabella: "Welcome!"', "(smiles)", "[busy day]")),
    "Isabella: (smiles) Welcome! [busy day]",
  );
  assert.equal(formatReply("Isabella", value("Hi.", null, "  ")), "Isabella: Hi.");
});

Deno.test("sourceOf() tells claims from what the character witnessed", () => {
  assert.equal(sourceOf("witnessed"), "witnessed by the character");
  assert.match(sourceOf("told_by:Sam Moore"), /what Sam Moore told the character, a claim/);
  assert.match(sourceOf("seed"), /background/);
});

Deno.test("enactTurn() sends at most the facets and memories asked for, in one model call", async () => {
  const t = await town();
  await using _ = t.deps;
  const turn = await turnOf(t, "Are the party decorations ready?", { facets: 1, memories: 2 });
  const relevance = [0.9, 0.1, 0.1];
  const out = await enactTurn(t.deps, contextOf(t), { ...turn, relevance });
  assert.deepEqual(t.kinds, ["respond"]);
  const sent = t.sent[0].prompt.input as RespondPromptInput;
  assert.deepEqual(sent.facets.map((f) => f.title), ["Party host"]);
  assert.deepEqual(out.facets.map((f) => f.title), ["Party host"]);
  assert.equal(out.ranking.length, 3, "the whole ranking is reported");
  assert.equal(sent.memories.length, 2);
  assert.equal(out.memories.length, 2);
  assert.match(out.reply, /^Isabella Rodriguez: /);
  assert.equal(out.usage.calls, 1);

  t.kinds.length = 0;
  t.sent.length = 0;
  await enactTurn(t.deps, { ...contextOf(t), record: null }, { ...turn, mode: "interview" });
  const bare = t.sent[0].prompt.input as RespondPromptInput;
  assert.deepEqual(bare.facets, [], "no persona, no facets");
  assert.deepEqual(bare.anchor.coreTraits, [{ trait: "friendly", desc: "" }]);
});
