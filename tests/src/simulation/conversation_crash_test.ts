import assert from "node:assert/strict";
import type { Conversation } from "../../../src/cognition/conversation.ts";
import { tickConversationId } from "../../../src/cognition/conversation_id.ts";
import { readConversationState } from "../../../src/cognition/conversation_state.ts";
import type { Deps } from "../../../src/deps.ts";
import type { AgentId, WorldId } from "../../../src/ids.ts";
import { getWorld } from "../../../src/world/world.ts";
import {
  consumeTickMessage,
  readTick,
  startTick,
  tickWorld,
} from "../../../src/simulation/tick_world.ts";
import { makeTestDeps } from "../../_helpers/test_deps.ts";
import { makeTown, recordingModel } from "../world/_town_fixture.ts";
import { HeldQueue } from "./_held_queue.ts";

/**
 * Deps whose invocation "dies" right after it stores a conversation: that write lands, then it
 * and every later store call fail, as in a process killed between the transcript and the
 * participants' states. Leases pass, so the retry need not wait for them to expire.
 */
function dyingAfterTranscript(deps: Deps): Deps {
  let dead = false;
  const dying = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, name) {
        const value = Reflect.get(target, name);
        if (typeof value !== "function") return value;
        return async (...args: unknown[]) => {
          if (dead) throw new Error("the process is gone");
          const out = await value.apply(target, args);
          const key = args[0] as { collection?: string };
          if (name === "create" && key?.collection === "conversations") {
            dead = true;
            throw new Error("the process died after storing the transcript");
          }
          return out;
        };
      },
    });
  const ports = new Map<PropertyKey, object>();
  const storage = new Proxy(deps.storage, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name === "locks" || name === "close" || typeof value !== "object" || value === null) {
        return typeof value === "function" ? value.bind(target) : value;
      }
      if (!ports.has(name)) ports.set(name, dying(value));
      return ports.get(name);
    },
  });
  return { ...deps, storage };
}

async function chatCount(deps: Deps, worldId: WorldId, agentId: string): Promise<number> {
  const page = await deps.storage.memories.list({ worldId, agentId: agentId as AgentId }, {
    kind: "chat",
    limit: 1_000,
  });
  return page.memories.length;
}

Deno.test("a pair's step that dies between the transcript and the states: the retry finishes that conversation, holds no second", async () => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await tickWorld(deps, id, { tickId: "t0" }); // Eddy and John share a house
  await startTick(deps, id, { tickId: "t1", queue });
  const steps = queue.take("step");

  // The first delivery of every message: the pair's dies once its transcript is stored.
  for (const m of steps) await consumeTickMessage(dyingAfterTranscript(deps), m, queue);
  const held = await deps.storage.documents.list<Conversation>("conversations", id);
  assert.equal(held.length, 1, "the first try stored its transcript");
  const first = held[0].value;
  assert.equal(first.id, tickConversationId("t1", first.participants[0]));
  const world = await getWorld(deps, id);
  for (const agentId of first.participants) {
    assert.equal(await readConversationState(deps, world, agentId), null, "and no state");
  }
  const chats = await Promise.all(first.participants.map((a) => chatCount(deps, id, a)));
  assert.deepEqual(chats, [first.lines.length, first.lines.length]);

  // The retries (the platform redelivers what failed), on a store that works.
  const beforeRetry = calls.length;
  for (let pending = queue.take("step"); pending.length > 0; pending = queue.take("step")) {
    for (const m of pending) await consumeTickMessage(deps, m, queue);
  }
  const retried = calls.slice(beforeRetry);
  assert.deepEqual(
    retried.filter((c) => c.kind === "reaction" || c.kind === "dialogue_line"),
    [],
    "not decided or talked again",
  );
  const after = await deps.storage.documents.list<Conversation>("conversations", id);
  assert.deepEqual(after.map((c) => c.value), [first], "one conversation, the first one");
  const [a, b] = first.participants;
  for (const [self, other] of [[a, b], [b, a]]) {
    const state = await readConversationState(deps, world, self);
    assert.deepEqual(state, {
      conversationId: first.id,
      with: other,
      until: first.endedAt,
      lastTalked: { [other]: first.endedAt },
    });
  }
  assert.deepEqual(
    await Promise.all(first.participants.map((p) => chatCount(deps, id, p))),
    chats,
    "each remembers the talk once",
  );
  const result = (await readTick(deps, id, "t1")).result!;
  const decider = result.steps.find((s) => s.agentId === a)!;
  assert.equal(decider.reacted, "talk");
  assert.equal(decider.conversationId, first.id);
  const talks = (await deps.storage.events.read(id, 0, 10_000)).filter((e) =>
    e.tickId === "t1" && e.type === "conversation"
  );
  assert.equal(talks.length, 1);
});
