import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../../../lib/offline/offline_language_model.ts";
import { withAgents } from "../../../../src/app/transaction.ts";
import { converse } from "../../../../src/app/cognition/dialogue.ts";
import { runTick } from "../../../../src/app/engine/tick_runners.ts";
import type { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import { agentTickSystem } from "../../../../src/app/simulation/agent_tick.ts";
import { updateWorld } from "../../../../src/app/world/world_store.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";
import { makeTown } from "../../domain/_town_fixture.ts";

/** The offline model whose reactions always want to talk, recording who asked what. */
function talkativeModel() {
  const inner = new OfflineLanguageModel({
    responders: {
      reaction: () => ({ decision: "talk", reason: "they just met", reaction: "say good morning" }),
    },
  });
  return countingModel(inner);
}

/** Eddy and John live in the same house; the first tick places them, the second they meet. */
const EDDY = "eddy" as AgentId;
const JOHN = "john" as AgentId;

async function step(deps: Parameters<typeof agentTickSystem>[0], id: WorldId, tickId: string) {
  return await runTick(deps, id, { system: agentTickSystem(deps), tickId });
}

Deno.test("agent step: of two agents who meet, only one decides, and one conversation holds both", async () => {
  const { model, sent } = talkativeModel();
  await using deps = await makeTestDeps({ model });
  const id = await makeTown(deps);
  await step(deps, id, "t0");
  const before = sent.length;
  const result = await step(deps, id, "t1");
  const reactions = sent.slice(before).filter((c) => c.prompt.kind === "reaction");
  assert.deepEqual(reactions.map((c) => c.attribution.agentId), [EDDY]);
  const eddy = result.steps.find((s) => s.agentId === EDDY)!;
  const john = result.steps.find((s) => s.agentId === JOHN)!;
  assert.equal(eddy.reacted, "talk");
  assert.equal(john.reacted, undefined);
  assert.ok(eddy.conversationId, "the talk decision started a conversation");
  assert.equal(john.conversationId, undefined);
  const events = await deps.storage.events.read(id, 0, 10_000);
  const talks = events.filter((e) => e.tickId === "t1" && e.type === "conversation");
  assert.equal(talks.length, 1);
  assert.deepEqual(talks[0].participants, [EDDY, JOHN]);
  // Both re-planned after talking: the step reports the plans it made as plan events.
  const replans = events.filter((e) => e.tickId === "t1" && e.type === "plan" && e.replan);
  assert.deepEqual(replans.map((e) => e.agentId).toSorted(), [EDDY, JOHN]);
});

Deno.test("agent step: an agent who talked within talkCooldownMinutes decides nothing about a newcomer", async (t) => {
  for (const [cooldown, expected] of [[120, []], [0, [EDDY]]] as const) {
    await t.step(`talkCooldownMinutes ${cooldown}`, async () => {
      const { model, sent } = talkativeModel();
      await using deps = await makeTestDeps({ model });
      const id = await makeTown(deps);
      await updateWorld(deps, id, { settings: { talkCooldownMinutes: cooldown } });
      await step(deps, id, "t0");
      // Eddy talked with Isabella an hour before he meets John.
      const scopes = [EDDY, "isabella" as AgentId].map((agentId) => ({ worldId: id, agentId }));
      await withAgents(deps, { scopes }, (tx) => converse(deps, tx, { at: "2023-02-13T06:00:00" }));
      const before = sent.length;
      await step(deps, id, "t1");
      const reactions = sent.slice(before).filter((c) => c.prompt.kind === "reaction");
      assert.deepEqual(reactions.map((c) => c.attribution.agentId), expected);
    });
  }
});
