/**
 * Group talk in a queued tick (issue 23), on both storage backends: three agents who may talk
 * share the cafe, so the tick holds one conversation of three in one message; delivering that
 * message twice (and after a failed commit) changes nothing.
 */
import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../../../lib/offline/offline_language_model.ts";
import { CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import type { Conversation } from "../../../../src/domain/conversation/conversation.ts";
import type { WorldId } from "../../../../src/domain/ids.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { updateAgent } from "../../../../src/app/lifecycle/update_agent.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { type OpenTick, openTickKey } from "../../../../src/app/engine/tick_store.ts";
import {
  consumeTickMessage,
  readTick,
  startTick,
} from "../../../../src/app/simulation/tick_world.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { startBackends } from "../../../_helpers/backends.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { countingModel, makeTestDeps } from "../../../_helpers/test_deps.ts";
import { HeldQueue } from "../../simulation/_held_queue.ts";

const { backends, close } = await startBackends();

const CAFE = [
  ["ana", "Ana Ruiz", "Ana Ruiz runs the bakery; Ana Ruiz is planning a party on Friday"],
  ["ben", "Ben Cho", "Ben Cho is a carpenter; Ben Cho loves board games"],
  ["cy", "Cy Park", "Cy Park is a nurse; Cy Park sings in a choir"],
];

async function cafe(deps: Deps, groupTalk: boolean): Promise<WorldId> {
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({
      name: "Cafe",
      startTime: "2023-02-13T09:00:00",
      settings: { groupTalk, conversationTurnCap: 2 },
    }),
  );
  const worldId = world.id as WorldId;
  for (const [id, name, description] of CAFE) {
    await createAgent(deps, worldId, CreateAgentInput.parse({ id, name, description }));
    await updateAgent(deps, { worldId, agentId: id as never }, {
      location: "Hobbs Cafe",
      action: "having a coffee",
    });
  }
  return worldId;
}

/** The cafe's first tick, queued: its queue, world and stored plan. */
async function plannedTick(deps: Deps, groupTalk: boolean) {
  const queue = new HeldQueue();
  const worldId = await cafe(deps, groupTalk);
  assert.equal((await startTick(deps, worldId, { tickId: "t1", queue })).status, "queued");
  const open = (await deps.storage.documents.get<OpenTick<unknown>>(openTickKey(worldId)))!.value;
  return { queue, worldId, open };
}

/** Everything a delivery could have changed: conversations, memories, events. */
async function snapshot(deps: Deps, worldId: WorldId) {
  const conversations = await deps.storage.documents.list<Conversation>("conversations", worldId);
  const memories: Record<string, string[]> = {};
  for (const [id] of CAFE) {
    const all = await deps.storage.memories.all({ worldId, agentId: id as never });
    memories[id] = all.map((m) => `${m.id}|${m.description}`).sort();
  }
  const events = (await deps.storage.events.read(worldId, 0, 10_000)).length;
  return { conversations: conversations.map((c) => c.value), memories, events };
}

/** The offline model, but every agent talks to the newcomer it sees; counting its calls. */
function talkative() {
  return countingModel(
    new OfflineLanguageModel({
      responders: {
        reaction: () => ({ decision: "talk", reason: "Friends.", reaction: "catch up" }),
      },
    }),
  );
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a queued tick holds one group conversation of three in one message; delivered twice, it changes nothing`,
    ...sanitizersFor(backend),
    fn: async () => {
      const counted = talkative();
      await using deps = await makeTestDeps({
        storage: await backend.open(),
        model: counted.model,
      });
      const { queue, worldId, open } = await plannedTick(deps, true);
      assert.deepEqual(open.groups, [["ana", "ben", "cy"]], "the three are one message");
      assert.deepEqual((open.shared as { circles: unknown }).circles, [["ana", ["cy"]]]);
      const [message] = queue.take("step");
      await consumeTickMessage(deps, message, queue);
      const once = await snapshot(deps, worldId);
      assert.equal(once.conversations.length, 1);
      const talk = once.conversations[0];
      assert.deepEqual(talk.participants, ["ana", "ben", "cy"]);
      talk.lines.slice(1).forEach((l, i) => assert.notEqual(l.speaker, talk.lines[i].speaker));
      for (const [id] of CAFE) {
        const chats = once.memories[id].filter((m) => m.startsWith("mc_"));
        assert.equal(chats.length, talk.lines.length, `${id} remembers every line`);
      }
      const calls = counted.kinds.length;

      await consumeTickMessage(deps, message, queue); // the same message, delivered again
      for (const m of queue.take("step")) await consumeTickMessage(deps, m, queue);
      const twice = await snapshot(deps, worldId);
      assert.deepEqual(twice.conversations, once.conversations);
      assert.deepEqual(twice.memories, once.memories);
      assert.equal(counted.kinds.length, calls, "no model call the second time");
      for (const m of queue.take("close")) await consumeTickMessage(deps, m, queue);
      const result = (await readTick(deps, worldId, "t1")).result!;
      assert.equal(result.steps.find((s) => s.agentId === "ana")!.conversationId, talk.id);
      assert.ok(result.steps.every((s) => s.error === undefined), JSON.stringify(result.steps));
    },
  });

  Deno.test({
    name:
      `[${backend.name}] without groupTalk the same tick pairs two; the third overhears them as the tick closes, once`,
    ...sanitizersFor(backend),
    fn: async () => {
      await using deps = await makeTestDeps({
        storage: await backend.open(),
        model: talkative().model,
      });
      const { queue, worldId, open } = await plannedTick(deps, false);
      assert.deepEqual(open.groups, [["ana", "ben"], ["cy"]]);
      assert.equal((open.shared as { circles?: unknown }).circles, undefined);
      const steps = queue.take("step");
      const cy = { worldId, agentId: "cy" as never };
      const overheardByCy = async () =>
        (await deps.storage.memories.all(cy)).filter((m) => m.kind === "chat");
      await consumeTickMessage(deps, steps[0], queue); // the pair's message: they talk
      assert.equal((await snapshot(deps, worldId)).conversations.length, 1);
      assert.deepEqual(await overheardByCy(), [], "nothing overheard while steps run");
      for (const m of steps.slice(1)) await consumeTickMessage(deps, m, queue);
      for (const m of queue.take("close")) await consumeTickMessage(deps, m, queue);
      // Cy, at the next table, overhears the pair: written as the tick closes, after every step.
      const talk = (await snapshot(deps, worldId)).conversations[0];
      assert.deepEqual(talk.listeners, ["cy"]);
      const overheard = await overheardByCy();
      assert.ok(overheard.length >= 1 && overheard.length <= 3, "within the bandwidth of 3");
      for (const m of steps) await consumeTickMessage(deps, m, queue); // delivered again
      assert.equal((await overheardByCy()).length, overheard.length);
      assert.ok(overheard.every((m) => m.provenance.startsWith("overheard:")));
    },
  });
}

Deno.test({
  name: "queued group talk: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
