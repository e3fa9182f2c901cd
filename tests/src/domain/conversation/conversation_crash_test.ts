import assert from "node:assert/strict";
import { LocalEmbedder } from "../../../../lib/offline/local_embedder.ts";
import type { Conversation } from "../../../../src/domain/conversation/conversation.ts";
import { tickConversationId } from "../../../../src/domain/conversation/conversation_id.ts";
import { readConversationState } from "../../../../src/app/cognition/conversation_state.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { ModelUnavailableError, StoreUnavailableError } from "../../../../src/domain/errors.ts";
import type { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import type { Embedder } from "../../../../src/ports/embedder.ts";
import type { TickMessage } from "../../../../src/ports/tick_queue.ts";
import { getWorld } from "../../../../src/app/world/world_store.ts";
import {
  consumeTickMessage,
  readTick,
  startTick,
  tickWorld,
} from "../../../../src/app/simulation/tick_world.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { makeTown, recordingModel } from "../_town_fixture.ts";
import { HeldQueue } from "../../simulation/_held_queue.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { startBackends } from "../../../_helpers/backends.ts";

const { backends, close } = await startBackends();

/** Store methods that change something (all others read). */
const WRITES = new Set([
  "append",
  "claim",
  "clear",
  "commit",
  "create",
  "delete",
  "deleteAll",
  "put",
  "remove",
  "replace",
  "setImportance",
  "touch",
  "upsert",
]);

/** Whether a store call writes the conversation's transcript or a chat memory. */
function writesTheTalk(name: PropertyKey, args: unknown[]): boolean {
  const [first, second] = args as [
    { collection?: string; documents?: { key: { collection: string } }[] },
    { kind?: string }[],
  ];
  if (name === "create") return first?.collection === "conversations";
  if (name === "commit") {
    return first?.documents?.some((d) => d.key.collection === "conversations") ?? false;
  }
  // MemoryStore.append takes the records, MemoryWriter.append `{ memories, vectors }`.
  const memories = Array.isArray(second) ? second : (second as { memories?: unknown })?.memories;
  return name === "append" && Array.isArray(memories) &&
    memories.some((m: { kind?: string }) => m?.kind === "chat");
}

/**
 * Deps whose store calls go through `fault`: it may throw (the call then does nothing) or return
 * a function to run once the call landed (which may throw in turn). Leases always pass, so a
 * retry need not wait for them to expire.
 */
type Method = (...args: unknown[]) => unknown;

function faulty(
  deps: Deps,
  fault: (name: PropertyKey, args: unknown[]) => (() => void) | void,
): Deps {
  const call =
    (target: object, name: PropertyKey, method: Method) => async (...args: unknown[]) => {
      const after = fault(name, args);
      const out = await method.apply(target, args);
      after?.();
      return out;
    };
  const wrap = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, name) {
        const value = Reflect.get(target, name);
        return typeof value === "function" ? call(target, name, value as Method) : value;
      },
    });
  const ports = new Map<PropertyKey, object>();
  const storage = new Proxy(deps.storage, {
    get(target, name) {
      const value = Reflect.get(target, name);
      if (name === "close" || name === "locks") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      // The store's own methods too.
      if (typeof value === "function") return call(target, name, value as Method);
      if (typeof value !== "object" || value === null) return value;
      if (!ports.has(name)) ports.set(name, wrap(value));
      return ports.get(name);
    },
  });
  return { ...deps, storage };
}

/**
 * Deps whose invocation "dies" once the conversation starts being stored (its transcript or a
 * chat memory, whichever is written first): after `landed` writes from there land (0: not even
 * that first one), every store call fails, as in a process killed there. `died` tells whether
 * it got that far.
 */
function dyingDuringTheTalk(deps: Deps, landed: number): { deps: Deps; died: () => boolean } {
  let counting = false;
  let writes = 0;
  let dead = false;
  const die = () => {
    dead = true;
    throw new Error("the process died");
  };
  const dying = faulty(deps, (name, args) => {
    if (dead) throw new Error("the process is gone");
    if (!WRITES.has(String(name))) return;
    counting ||= writesTheTalk(name, args);
    if (!counting) return;
    if (writes === landed) die();
    writes++;
    return writes === landed ? die : undefined;
  });
  return { deps: dying, died: () => dead };
}

type StepMessage = Extract<TickMessage, { kind: "step" }>;

/** Delivers every step message, redelivering one whose handling threw, as the platform does. */
async function deliverAll(
  deps: Deps | ((m: StepMessage) => Deps),
  queue: HeldQueue,
): Promise<void> {
  for (let pending = queue.take("step"); pending.length > 0; pending = queue.take("step")) {
    for (const m of pending) {
      await consumeTickMessage(typeof deps === "function" ? deps(m as StepMessage) : deps, m, queue)
        .catch(() => queue.send([m]));
    }
  }
}

/**
 * Everything a tick's conversation leaves, checked: one conversation, of the tick's id; each
 * participant remembers each of its lines once (a vector for every memory); both states point
 * to it; the decider's step reports the talk and one conversation event is logged.
 */
async function assertFinishedOnce(deps: Deps, worldId: WorldId): Promise<Conversation> {
  const stored = await deps.storage.documents.list<Conversation>("conversations", worldId);
  assert.equal(stored.length, 1, "one conversation");
  const talk = stored[0].value;
  const [a, b] = talk.participants;
  assert.equal(talk.id, tickConversationId("t1", a));
  const world = await getWorld(deps, worldId);
  for (const [self, other] of [[a, b], [b, a]]) {
    const scope = { worldId, agentId: self as AgentId };
    const chats = (await deps.storage.memories.all(scope)).filter((m) => m.kind === "chat");
    assert.deepEqual(
      chats.map((m) => [m.createdAt, m.description]),
      talk.lines.map((l) => [l.at, chats.find((m) => m.createdAt === l.at)?.description]),
      `${self} remembers each line once`,
    );
    talk.lines.forEach((l, i) => {
      assert.ok(chats[i].description.startsWith(`${l.name} said to `), chats[i].description);
      assert.ok(chats[i].description.endsWith(`"${l.text}"`), chats[i].description);
    });
    // A vector for every chat memory and none for a chat memory not stored (an orphan vector
    // of another write, e.g. a re-plan's, is the repair sweep's).
    const vectors = new Set(await deps.storage.vectors.ids(scope));
    const chatVectors = [...vectors].filter((v) => v.startsWith("mc_")).sort();
    assert.deepEqual(chatVectors, chats.map((m) => m.id).sort(), `${self}: chat vectors`);
    assert.deepEqual(await readConversationState(deps, world, self), {
      conversationId: talk.id,
      with: other,
      until: talk.endedAt,
      lastTalked: { [other]: talk.endedAt },
    });
  }
  const result = (await readTick(deps, worldId, "t1")).result!;
  assert.deepEqual(result.steps.filter((s) => s.error), [], "no step failed in the end");
  const decider = result.steps.find((s) => s.agentId === a)!;
  assert.equal(decider.reacted, "talk");
  assert.equal(decider.conversationId, talk.id);
  const events = (await deps.storage.events.read(worldId, 0, 10_000)).filter((e) =>
    e.tickId === "t1" && e.type === "conversation"
  );
  assert.equal(events.length, 1, "one conversation event");
  return talk;
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] a pair's step that dies anywhere while its conversation is stored: the retry leaves it stored once, remembered once`,
    ...sanitizersFor(backend),
    fn: async (t) => {
      for (let landed = 0;; landed++) {
        const { model, calls } = recordingModel();
        await using deps = await makeTestDeps({ model, storage: await backend.open() });
        const queue = new HeldQueue();
        const id = await makeTown(deps);
        await tickWorld(deps, id, { tickId: "t0" }); // Eddy and John share a house
        await startTick(deps, id, { tickId: "t1", queue });

        // The first delivery of every message: the pair's dies `landed` writes into its talk.
        let died = false;
        for (const m of queue.take("step")) {
          const dying = dyingDuringTheTalk(deps, landed);
          await consumeTickMessage(dying.deps, m, queue).catch(() => queue.send([m]));
          died ||= dying.died();
        }
        if (!died) break; // past the message's last write: every point was tried
        const first = await deps.storage.documents.list<Conversation>("conversations", id);
        const beforeRetry = calls.length;
        await deliverAll(deps, queue);
        await t.step(`died after ${landed} writes of the talk landed`, async () => {
          const talk = await assertFinishedOnce(deps, id);
          if (first.length === 1) {
            assert.deepEqual(talk, first[0].value, "the first try's conversation");
            const retried = calls.slice(beforeRetry).filter((c) =>
              c.kind === "reaction" || c.kind === "dialogue_line"
            );
            assert.deepEqual(retried, [], "not decided or talked again");
          }
        });
      }
    },
  });

  Deno.test({
    name:
      `[${backend.name}] a pair's conversation that fails after its transcript is stored is not kept as the pair's decision: the retry finishes it`,
    ...sanitizersFor(backend),
    fn: async () => {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const queue = new HeldQueue();
      const id = await makeTown(deps);
      await tickWorld(deps, id, { tickId: "t0" });
      await startTick(deps, id, { tickId: "t1", queue });
      // The first try: the store refuses the participants' conversation states (an ordinary error;
      // the transcript, memories and counters are stored, and so would be a decision).
      const refusingStates = faulty(deps, (name, args) => {
        const key = args[0] as { collection?: string };
        if ((name === "create" || name === "replace") && key?.collection === "conversation_state") {
          throw new StoreUnavailableError("Cannot reach Redis");
        }
      });
      await deliverAll((m) => m.attempt === 1 ? refusingStates : deps, queue);
      await assertFinishedOnce(deps, id);
    },
  });

  for (const tries of [2, 3]) {
    Deno.test({
      name:
        `[${backend.name}] a pair's conversation whose store fails after the transcript and whose model fails on the retry: ${
          tries === 3 ? "finished by the third try" : "the decider's agent_error when tries run out"
        }`,
      ...sanitizersFor(backend),
      fn: async () => {
        const local = new LocalEmbedder({ dimensions: 384 });
        const embedder: Embedder = {
          info: local.info,
          embed: (texts, attribution) =>
            downFor === attribution.agentId
              ? Promise.reject(new ModelUnavailableError("model_unavailable", "Cannot embed"))
              : local.embed(texts, attribution),
        };
        let downFor: string | undefined;
        await using deps = await makeTestDeps({ embedder, storage: await backend.open() });
        const queue = new HeldQueue();
        const id = await makeTown(deps);
        await tickWorld(deps, id, { tickId: "t0" });
        await startTick(deps, id, { tickId: "t1", queue, maxAttempts: tries });
        // The first try: every write after the transcript fails (the removal of what it wrote too).
        // The second: the store works, the embedder does not, while the retry embeds the memories.
        let stored = false;
        const downAfterTranscript = faulty(deps, (name, args) => {
          if (stored && WRITES.has(String(name))) throw new StoreUnavailableError("Redis is gone");
          if (writesTheTalk(name, args)) return () => void (stored = true);
        });
        await deliverAll((m) => {
          downFor = m.attempt === 2 ? "eddy" : undefined;
          return m.attempt === 1 ? downAfterTranscript : deps;
        }, queue);
        if (tries === 3) {
          await assertFinishedOnce(deps, id);
          return;
        }
        const result = (await readTick(deps, id, "t1")).result!;
        assert.deepEqual(result.steps.filter((s) => s.error).map((s) => s.agentId), ["eddy"]);
        const errors = (await deps.storage.events.read(id, 0, 10_000)).filter((e) =>
          e.tickId === "t1" && e.type === "agent_error"
        );
        assert.deepEqual(errors.map((e) => [e.agentId, e.code]), [["eddy", "model_unavailable"]]);
      },
    });
  }
}

Deno.test({
  name: "conversation crash tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
