import assert from "node:assert/strict";
import { inTransaction } from "../../../_helpers/agent_transaction.ts";
import {
  OfflineLanguageModel,
  type OfflineResponder,
} from "../../../../lib/offline/offline_language_model.ts";
import { type Agent, CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { converse } from "../../../../src/app/cognition/dialogue.ts";
import { addressedIn } from "../../../../src/app/cognition/group_dialogue.ts";
import { caughtLines } from "../../../../src/app/cognition/overhearing.ts";
import type { DialogueLineInput } from "../../../../src/domain/prompts/dialogue_line.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import { CreateWorldInput, type World } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";

const AT = "2023-02-13T16:56:00";

function tally(kinds: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of kinds) out[k] = (out[k] ?? 0) + 1;
  return out;
}

async function trio(deps: Deps, settings: Record<string, unknown> = {}) {
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ name: "Lin house", startTime: "2023-02-13T07:00:00", settings }),
  );
  const make = async (id: string, name: string, description: string) =>
    (await createAgent(
      deps,
      world.id as WorldId,
      CreateAgentInput.parse({ id, name, description }),
    )).agent;
  const john = await make("john", "John Lin", "John Lin is a pharmacist; John Lin loves jazz");
  const mei = await make("mei", "Mei Lin", "Mei Lin is a professor; Mei Lin grows tomatoes");
  const eddy = await make("eddy", "Eddy Lin", "Eddy Lin studies music; Eddy Lin plays piano");
  return { world, people: [john, mei, eddy] };
}

function talk(deps: Deps, world: World, people: Agent[], topic?: string) {
  return inTransaction(
    deps,
    { world, agents: people },
    (tx) => converse(deps, tx, { at: AT, topic }),
  );
}

Deno.test("a group of n talking L lines costs L dialogue-line calls and at most n importance calls", async () => {
  const { model, kinds } = countingModel(new OfflineLanguageModel());
  await using deps = await makeTestDeps({ model });
  const { world, people } = await trio(deps, { conversationTurnCap: 3 });
  // Summaries and day plans first, so only the conversation's own calls are left to count.
  await talk(deps, world, people);
  kinds.length = 0;
  const result = await talk(deps, world, people, "the garden");
  const counted = tally(kinds);
  assert.equal(counted.dialogue_line, result.lines.length);
  assert.ok(counted.importance <= people.length, JSON.stringify(counted));
  const { dialogue_line: _l, importance: _i, ...rest } = counted;
  assert.deepEqual(Object.keys(rest).filter((k) => k !== "day_plan"), [], "only re-plans besides");
  assert.ok(result.lines.length <= 2 * 3, "at most twice the turn cap");
  result.lines.slice(1).forEach((l, i) => assert.notEqual(l.speaker, result.lines[i].speaker));
});

Deno.test("the one a line names speaks next, whoever is most relevant", async () => {
  const said: string[] = [];
  const responder: OfflineResponder = (input) => {
    const i = input as DialogueLineInput;
    said.push(i.speakerName);
    const lines: Record<string, string> = {
      "John Lin": "Eddy, play us something?",
      "Eddy Lin": "Sure. Mei, any requests?",
      "Mei Lin": "Something calm, please.",
    };
    return { line: lines[i.speakerName], end: i.speakerName === "Mei Lin" };
  };
  await using deps = await makeTestDeps({
    model: new OfflineLanguageModel({ responders: { dialogue_line: responder } }),
  });
  const { world, people } = await trio(deps);
  const result = await talk(deps, world, people);
  const speakers: string[] = result.lines.map((l) => l.speaker);
  assert.deepEqual(speakers.slice(0, 3), ["john", "eddy", "mei"]);
  assert.ok(!speakers.slice(3).includes("mei"), "Mei ended: she is done");
  assert.equal(result.lines.length, 16, "the two left talk to twice the turn cap");
  assert.equal(result.endedBy, "turn_cap");
  assert.deepEqual(said.slice(0, 3), ["John Lin", "Eddy Lin", "Mei Lin"]);
});

Deno.test("addressedIn finds the earliest named candidate, by full or first name as a word", () => {
  const people = [
    { id: "john", name: "John Lin" },
    { id: "mei", name: "Mei Lin" },
  ] as Agent[];
  assert.equal(addressedIn("Well, Mei and John, hello", people)?.id, "mei");
  assert.equal(addressedIn("Johnny is here", people), null);
  assert.equal(addressedIn("ask john lin", people)?.id, "john");
});

Deno.test("a listener catches lines naming it, then the most important within its bandwidth", () => {
  const lines = ["a", "b", "Tom, look", "c", "d"].map((text) => ({ text }));
  const importance = [2, 9, 1, 5, 9];
  assert.deepEqual(
    caughtLines({ name: "Tom Moreno" }, lines, { importance, bandwidth: 2 }),
    [1, 2, 4],
  );
});

Deno.test("a group talk tried again with its id is finished, not held again: the missing memories are written", async () => {
  const { model, kinds } = countingModel(new OfflineLanguageModel());
  await using deps = await makeTestDeps({ model });
  const { world, people } = await trio(deps);
  const hold = () =>
    inTransaction(
      deps,
      { world, agents: people },
      (tx) => converse(deps, tx, { at: AT, id: "c_group" }),
    );
  const first = await hold();
  const eddy = { worldId: world.id as WorldId, agentId: people[2].id };
  const lost = (await deps.storage.memories.all(eddy)).filter((m) => m.kind === "chat");
  assert.equal(lost.length, first.lines.length);
  // A crash after the transcript: Eddy's memories of it were never written.
  await deps.storage.memories.remove(eddy, lost.map((m) => m.id));
  await deps.storage.vectors.delete(eddy, lost.map((m) => m.id));
  kinds.length = 0;
  const again = await hold();
  assert.deepEqual(again.lines, first.lines);
  assert.equal(kinds.filter((k) => k === "dialogue_line").length, 0, "no line said again");
  const found = (await deps.storage.memories.all(eddy)).filter((m) => m.kind === "chat");
  assert.deepEqual(found.map((m) => m.id).sort(), lost.map((m) => m.id).sort());
});

Deno.test("in a group, only who heard something about its day re-plans; small talk leaves plans alone", async () => {
  const script = (news: boolean): OfflineResponder => (input) => {
    const i = input as DialogueLineInput;
    const lines: Record<string, string> = {
      "John Lin": news ? "Mei, there is a party at the cafe at 5pm!" : "Mei, lovely weather.",
      "Mei Lin": "Eddy, what do you think?",
      "Eddy Lin": "Nice.",
    };
    return { line: lines[i.speakerName], end: true };
  };
  for (const news of [false, true]) {
    await using deps = await makeTestDeps({
      model: new OfflineLanguageModel({ responders: { dialogue_line: script(news) } }),
    });
    const { world, people } = await trio(deps);
    const result = await talk(deps, world, people);
    const replanned = result.plans.filter((p) => p.replan).map((p) => p.agentId as string).sort();
    assert.deepEqual(replanned, news ? ["eddy", "mei"] : [], `news: ${news}`);
  }
});
