import assert from "node:assert/strict";
import { loadAgent } from "../../../../src/app/agents/agent_store.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import type { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import { prepareMemories, writeMemories } from "../../../../src/app/memory/ingest.ts";
import { perceive } from "../../../../src/app/perceive.ts";
import { interview, interviewQuestions } from "../../../../src/app/persona/interview.ts";
import type { RespondPromptInput } from "../../../../src/domain/prompts/respond.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";

async function town() {
  const rec = countingModel();
  const deps = await makeTestDeps({ model: rec.model });
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({
      name: "T",
      startTime: "2023-02-13T07:00:00",
      settings: { autoReflect: false },
    }),
  );
  const worldId = world.id as WorldId;
  const agentId = "klaus" as AgentId;
  await createAgent(deps, worldId, {
    id: agentId,
    name: "Klaus Mueller",
    description:
      "Klaus Mueller is a student at Oak Hill College; he is writing a paper on gentrification",
  });
  await perceive(deps, { worldId, agentId }, {
    observations: [
      { text: "Wolfgang Schulz gave Klaus a book about urban housing" },
      { text: "Wolfgang Schulz and Klaus talked about the paper at Hobbs Cafe" },
      { text: "Ayesha Khan is studying Shakespeare at the library" },
    ],
  });
  const scope = { worldId, agentId };
  const agent = (await loadAgent(deps, scope)).value;
  const prepared = await prepareMemories(deps, agent, {
    items: [{
      description: "Klaus admires how dedicated Wolfgang Schulz is to research",
      kind: "reflection",
      provenance: "self",
      at: "2023-02-13T07:00:00",
      importance: 8,
    }],
  });
  await writeMemories(deps, scope, { prepared });
  return { deps, rec, worldId, agentId, scope, reflection: prepared.records[0].id };
}

Deno.test("interviewQuestions() has five categories of five questions and fills names", () => {
  const q = interviewQuestions({
    first: "Wolfgang Schulz",
    second: "Ayesha Khan",
    stranger: "Rowan Ashby",
  });
  assert.deepEqual(Object.keys(q), [
    "self_knowledge",
    "memory",
    "plans",
    "reactions",
    "reflections",
  ]);
  for (const list of Object.values(q)) assert.equal(list.length, 5);
  assert.equal(q.memory[0], "Who is Wolfgang Schulz?");
  assert.equal(q.memory[1], "Who is Rowan Ashby?");
  assert.equal(q.memory[4], "Who is Ayesha Khan?");
  assert.match(q.reflections[1], /Wolfgang Schulz/);
  const none = interviewQuestions({ first: null, second: null, stranger: "Rowan Ashby" });
  assert.doesNotMatch(none.memory.join(" "), /null/);
});

Deno.test("interview() runs 25 questions with names from memory and stores nothing", async () => {
  const { deps, rec, worldId, agentId, scope } = await town();
  await using _ = deps;
  const before = (await deps.storage.memories.all(scope)).length;
  rec.sent.length = 0;
  const out = await interview(deps, { worldId, agentId }, {});
  assert.equal(out.transcript.length, 25);
  assert.equal(out.names[0], "Wolfgang Schulz");
  assert.ok(!out.names.includes("Oak Hill College") && !out.names.includes("Hobbs Cafe"));
  assert.equal(out.transcript[5].question, "Who is Wolfgang Schulz?");
  for (const a of out.transcript) assert.match(a.answer, /^Klaus Mueller: /);
  assert.equal(rec.kinds.filter((k) => k === "respond").length, 25);
  assert.equal((await deps.storage.memories.all(scope)).length, before, "no memory written");
});

Deno.test("interview() ablations restrict what the answers may use", async () => {
  const { deps, rec, worldId, agentId, reflection } = await town();
  await using _ = deps;
  const none = await interview(deps, { worldId, agentId }, {
    ablation: "no_memory",
    categories: ["memory"],
  });
  assert.equal(none.transcript.length, 5);
  assert.ok(none.transcript.every((a) => a.memories.length === 0));
  assert.deepEqual(none.names, []);
  const sent = rec.sent.filter((s) => s.prompt.kind === "respond").at(-1)!.prompt
    .input as RespondPromptInput;
  assert.match(sent.anchor.summary, /^Name: Klaus Mueller\nKlaus Mueller is a student/);

  const uses = async (ablation: "full" | "no_reflection" | "no_reflection_no_plan") => {
    const out = await interview(deps, { worldId, agentId }, { ablation, categories: ["memory"] });
    assert.ok(out.transcript.some((a) => a.memories.length > 0));
    return out.transcript.some((a) => a.memories.includes(reflection));
  };
  assert.equal(await uses("full"), true);
  assert.equal(await uses("no_reflection"), false);
  assert.equal(await uses("no_reflection_no_plan"), false);
});
