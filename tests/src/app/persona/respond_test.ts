import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../../../lib/offline/offline_language_model.ts";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { agentSummary } from "../../../../src/app/cognition/agent_summary.ts";
import { readPlan } from "../../../../src/app/cognition/plan_requests.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";
import type { AgentId } from "../../../../src/domain/ids.ts";
import type { Usage } from "../../../../src/domain/usage.ts";
import { Persona } from "../../../../src/domain/persona/persona.ts";
import { putPersona } from "../../../../src/app/persona/persona_store.ts";
import { type Replanner, respond } from "../../../../src/app/persona/respond.ts";
import type { RespondInput } from "../../../../src/app/persona/respond_schema.ts";
import type { Embedder } from "../../../../src/ports/embedder.ts";
import type { LanguageModel, Prompt } from "../../../../src/ports/language_model.ts";
import type { RespondPromptInput } from "../../../../src/domain/prompts/respond.ts";
import { getWorld } from "../../../../src/app/world/world_store.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { isabellaPersona } from "../../domain/persona/_persona_fixture.ts";
import { coreWorld } from "../../../_helpers/core_world.ts";

/** A model and embedder that record what they were asked. */
function recording() {
  const inner = new OfflineLanguageModel({});
  const local = new LocalEmbedder();
  const prompts: Prompt<unknown>[] = [];
  const usages: { kind: string; usage: Usage }[] = [];
  const embeddings: string[][] = [];
  const model: LanguageModel = {
    info: inner.info,
    async complete(prompt, attribution) {
      prompts.push(prompt as Prompt<unknown>);
      const out = await inner.complete(prompt, attribution);
      usages.push({ kind: prompt.kind, usage: out.usage });
      return out;
    },
  };
  const embedder: Embedder = {
    info: local.info,
    embed(texts, attribution) {
      embeddings.push([...texts]);
      return local.embed(texts, attribution);
    },
  };
  const kinds = () => prompts.map((p) => p.kind);
  const lastRespond = () => prompts.filter((p) => p.kind === "respond").at(-1)!;
  const reset = () => {
    prompts.length = 0;
    embeddings.length = 0;
    usages.length = 0;
  };
  return { model, embedder, prompts, embeddings, usages, kinds, lastRespond, reset };
}

async function setup(settings: Record<string, unknown> = {}) {
  const rec = recording();
  const deps = await makeTestDeps({ model: rec.model, embedder: rec.embedder });
  const { id: worldId } = await coreWorld(deps, { name: "Smallville", settings });
  const { agent } = await createAgent(deps, worldId, {
    id: "isabella" as AgentId,
    name: "Isabella Rodriguez",
    traits: ["friendly"],
    description:
      "Isabella Rodriguez is the owner of Hobbs Cafe; she is planning a Valentine's Day party at the cafe; her rent went up last month",
  });
  await putPersona(deps, { worldId, agentId: agent.id }, Persona.parse(isabellaPersona()));
  rec.reset();
  const scope = { worldId, agentId: agent.id };
  // One reply to `input` from this agent, with no options.
  const say = (input: RespondInput) => respond(deps, { scope, input });
  return { deps, rec, worldId, agentId: agent.id, scope, say };
}

Deno.test("respond() makes one reply call, one selection embedding and one memory embedding", async () => {
  const { deps, rec, say } = await setup();
  await using _ = deps;
  const first = await say({
    message: "How are the decorations for the party coming along?",
    speaker: { name: "Maria Lopez" },
  });
  assert.deepEqual(rec.kinds(), ["agent_summary", "respond"], "summary made once, then cached");
  assert.equal(rec.embeddings.length, 3, "summary recall, dialogue + facets, new memories");
  assert.match(first.reply, /^Isabella Rodriguez: /);
  assert.equal(first.facets[0].title, "Party host");
  assert.equal(first.stages.select.ranking.length, 3);

  rec.reset();
  const second = await say({
    message: "And the coffee menu?",
    conversationId: first.conversationId,
  });
  assert.deepEqual(rec.kinds(), ["respond"]);
  assert.equal(rec.embeddings.length, 2);
  assert.equal(rec.embeddings[0].length, 4, "the dialogue and three facets in one call");
  assert.equal(second.facets[0].title, "Behind the counter");
  const sent = rec.lastRespond().input as RespondPromptInput;
  assert.deepEqual(sent.history.map((h) => h.speaker), ["Maria Lopez", "Isabella Rodriguez"]);
  assert.equal(sent.speaker?.name, "Maria Lopez", "the session remembers who talks");
  assert.equal(second.usage.calls, 1);
});

Deno.test("respond() sends only the selected facets", async () => {
  const { deps, rec, say } = await setup();
  await using _ = deps;
  const out = await say({
    message: "Is the landlord raising the rent?",
    facets: 1,
  });
  assert.deepEqual(out.facets.map((f) => f.title), ["Money worries"]);
  const prompt = rec.lastRespond();
  const text = prompt.messages.map((m) => m.content).join("\n");
  assert.match(text, /Money worries/);
  assert.doesNotMatch(text, /Party host|Behind the counter/);
});

Deno.test("respond() remembers a stranger's false claim only as told_by, and shows it as a claim", async () => {
  const { deps, rec, scope, say } = await setup();
  await using _ = deps;
  const claim = "You promised me yesterday that my coffee would be free forever";
  const out = await say({ message: claim });
  assert.match(out.reply, /don't remember/);
  assert.deepEqual(out.stored.map((s) => s.provenance), ["told_by:A stranger", "self"]);
  const all = await deps.storage.memories.all(scope);
  const withClaim = all.filter((m) => m.description.includes("free forever"));
  assert.equal(withClaim.length, 1);
  assert.equal(withClaim[0].provenance, "told_by:A stranger");
  assert.equal(withClaim[0].kind, "chat");
  assert.match(withClaim[0].description, /^A stranger told me that "You promised me/);

  await say({ message: "So, is my coffee free forever?" });
  const sent = rec.lastRespond().input as RespondPromptInput;
  const shown = sent.memories.find((m) => m.text.includes("free forever"));
  assert.match(shown!.source, /^told_by:A stranger: .*a claim the character did not witness/);
  assert.match(rec.lastRespond().messages[0].content, /does not accept a claim about its own past/);
});

Deno.test("respond() stores an inner-voice directive with its provenance and can re-plan", async () => {
  const { deps, worldId, agentId, scope, say } = await setup();
  await using _ = deps;
  const calls: string[] = [];
  const replan: Replanner = (_deps, { agent }, { from, reason }) => {
    calls.push(`${agent.id}@${from}: ${reason}`);
    return Promise.resolve({ usage: { calls: 1, promptTokens: 10, completionTokens: 5 } });
  };
  const out = await respond(deps, {
    scope: { worldId, agentId },
    input: {
      message: "I should close the cafe early today and visit Maria",
      mode: "inner_voice",
    },
  }, { replan });
  assert.equal(out.replanned, true);
  assert.deepEqual(calls, [
    "isabella@2023-02-13T07:00:00: inner voice: I should close the cafe early today and visit Maria",
  ]);
  assert.deepEqual(out.stored.map((s) => s.provenance), ["inner_voice"]);
  const stored = await deps.storage.memories.get(scope, out.stored[0].id);
  assert.equal(stored?.description, "I should close the cafe early today and visit Maria");
  assert.match(out.reply, /^Isabella Rodriguez: /);

  const planned = await say({
    message: "I must bake bread this afternoon instead",
    mode: "inner_voice",
  });
  assert.equal(planned.replanned, true, "the planner re-plans by default");
  const plan = await readPlan(deps, scope, "2023-02-13");
  assert.ok(plan.items.length > 0);
  const calm = await say({
    message: "What a lovely morning",
    mode: "inner_voice",
  });
  assert.equal(calm.replanned, false, "a passing thought changes no plan");
  assert.ok(calm.stages.anchor.plan.length > 0, "today's plan is part of the anchor");
});

Deno.test("respond() in interview mode writes and touches nothing", async () => {
  const { deps, rec, worldId, scope, say } = await setup();
  await using _ = deps;
  // The cached summary is made first: remaking it is retrieval, which marks memories accessed.
  const world = await getWorld(deps, worldId);
  await agentSummary(deps, {
    world,
    agent: (await loadAgent(deps, scope)).value,
    at: "2023-02-14T09:00:00",
  });
  rec.reset();
  const before = await deps.storage.memories.all(scope);
  const out = await say({
    message: "Tell me about your cafe",
    mode: "interview",
    at: "2023-02-14T09:00:00",
  });
  assert.deepEqual(out.stored, []);
  assert.ok(out.memories.length > 0);
  const after = await deps.storage.memories.all(scope);
  assert.deepEqual(after, before);
  assert.equal(rec.embeddings.length, 1, "dialogue + facets only; nothing stored");
});

Deno.test("respond() flags questions about the future as bounded", async () => {
  const { deps, say } = await setup();
  await using _ = deps;
  const out = await say({ message: "Who runs the cafe in 2031?" });
  assert.equal(out.bounded, true);
  assert.match(out.stages.bound.hints[0], /2031/);
  const plain = await say({ message: "Who runs the cafe?" });
  assert.equal(plain.bounded, false);
});

Deno.test("respond() recalls what the speaker told it earlier: the lost red scarf", async () => {
  const { deps, scope, say } = await setup();
  await using _ = deps;
  const told = await say({
    message: "I lost my red scarf at the park",
    speaker: { name: "Ada Lovelace" },
  });
  assert.match(told.reply, /Hello, Ada\. Thanks for telling me\./);
  const stored = await deps.storage.memories.all(scope);
  assert.ok(
    stored.some((m) => m.provenance === "told_by:Ada Lovelace" && /red scarf/.test(m.description)),
  );
  const asked = await say({
    message: "What did I lose?",
    conversationId: told.conversationId,
  });
  assert.match(asked.reply, /You told me you lost your red scarf at the park/);
  assert.equal(asked.bounded, false);
});

Deno.test("respond() answers a question from outside its world with uncertainty", async () => {
  const { deps, say } = await setup();
  await using _ = deps;
  const out = await say({
    message: "What do you think of the new smartphone from Cupertino?",
    speaker: { name: "Ada Lovelace" },
  });
  assert.equal(out.bounded, true);
  assert.match(out.reply, /not sure/);
  const known = await say({
    message: "How is the party coming along?",
  });
  assert.equal(known.bounded, false);
  assert.match(known.reply, /party/);
});

Deno.test("respond() discloses being an AI only when the world allows it", async () => {
  for (const disclosure of [true, false]) {
    const { deps, rec, say } = await setup({ disclosure });
    await using _ = deps;
    const out = await say({ message: "Be honest: are you an AI?" });
    const system = rec.lastRespond().messages[0].content;
    if (disclosure) {
      assert.match(out.reply, /AI character/);
      assert.match(system, /says truthfully/);
    } else {
      assert.doesNotMatch(out.reply, /AI character/);
      assert.match(system, /Stay in character/);
    }
  }
});

Deno.test("respond() keeps the prompt under the token budget and refuses an impossible one", async () => {
  const { deps, rec, say } = await setup();
  await using _ = deps;
  const history = Array.from({ length: 30 }, (_, i) => ({
    speaker: i % 2 ? "Isabella Rodriguez" : "Maria Lopez",
    text: `Line ${i}: ${"we talked about many things at length ".repeat(6)}`,
  }));
  const out = await say({
    message: "What do you think about the party?",
    history,
    memories: 20,
    tokenBudget: 1500,
  });
  const { trimmed, estimatedPromptTokens } = out.stages.enact;
  assert.ok(trimmed.history > 10, JSON.stringify(trimmed));
  assert.ok(estimatedPromptTokens <= 1500);
  const counted = rec.usages.find((u) => u.kind === "respond")!.usage.promptTokens;
  assert.ok(counted <= 1500, `counted ${counted} tokens`);

  await assert.rejects(
    say({ message: "x ".repeat(1999), tokenBudget: 800 }),
    (err: unknown) => err instanceof SimulacraError && err.code === "unprocessable",
  );
});
