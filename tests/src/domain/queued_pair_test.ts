import assert from "node:assert/strict";
import type { Deps } from "../../../src/ports/deps.ts";
import { ModelUnavailableError } from "../../../src/domain/errors.ts";
import type { WorldId } from "../../../src/domain/ids.ts";
import { type OpenTick, openTickKey, stepResults } from "../../../src/app/engine/tick_store.ts";
import { deleteWorld } from "../../../src/app/lifecycle/delete.ts";
import type { TickMessage } from "../../../src/ports/tick_queue.ts";
import type { UnitOfWorkStore } from "../../../src/ports/unit_of_work_store.ts";
import {
  consumeTickMessage,
  readTick,
  startTick,
  tickWorld,
} from "../../../src/app/simulation/tick_world.ts";
import { makeTestDeps } from "../../_helpers/test_deps.ts";
import { makeTown, recordingModel } from "./_town_fixture.ts";
import { HeldQueue } from "../simulation/_held_queue.ts";

const TALK_KINDS = new Set(["reaction", "dialogue_line"]);

/** Deps whose store fails once to commit the step of `key` (after the step did its work). */
function failingOnceToKeep(deps: Deps, key: string): Deps {
  const inner = deps.storage.units;
  let failed = false;
  const units: UnitOfWorkStore = {
    begin: (request) => inner.begin(request),
    commit(request) {
      if (!failed && request.claim?.key.endsWith(`/${key}`)) {
        failed = true;
        return Promise.reject(new Error("the store went away"));
      }
      return inner.commit(request);
    },
  };
  const storage = new Proxy(deps.storage, {
    get(target, name) {
      if (name === "units") return units;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ...deps, storage };
}

async function conversationsOf(deps: Deps, id: WorldId) {
  return await deps.storage.documents.list<{ id: string }>("conversations", id);
}

Deno.test("a queued tick where two agents meet: planning decides nothing, the pair's message holds the one conversation, and a retried message holds no second", async () => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await tickWorld(deps, id, { tickId: "t0" }); // everyone gets a place; Eddy and John share a house

  const beforePlan = calls.length;
  assert.equal((await startTick(deps, id, { tickId: "t1", queue })).status, "queued");
  const planCalls = calls.slice(beforePlan);
  assert.deepEqual(planCalls.filter((c) => TALK_KINDS.has(c.kind)), [], "no decision, no dialogue");
  assert.ok(planCalls.every((c) => c.agentId === undefined), "no agent's call while planning");
  const open = (await deps.storage.documents.get<OpenTick<unknown>>(openTickKey(id)))!.value;
  // Who is paired with whom, never a decision (and no agent's view: each step works out its own,
  // with the attention and routine object states the plan holds).
  assert.deepEqual(Object.keys(open.shared as object).sort(), [
    "attention",
    "changedObjects",
    "env",
    "pairs",
    "roster",
    "routine",
    "scores",
  ]);
  assert.equal(await conversationsOf(deps, id).then((c) => c.length), 0);

  const steps = queue.take("step");
  const pairGroup = open.groups.findIndex((g) => g.includes("eddy"));
  assert.deepEqual(open.groups[pairGroup], ["eddy", "john"], "the pair is one message");
  const pair = steps.find((m) => m.kind === "step" && m.group === pairGroup)!;

  // First delivery: Eddy decides and they talk, then the store fails to keep Eddy's result.
  const beforePair = calls.length;
  await consumeTickMessage(failingOnceToKeep(deps, "eddy"), pair, queue);
  const firstTry = calls.slice(beforePair);
  assert.deepEqual(
    firstTry.filter((c) => c.kind === "reaction").map((c) => c.agentId),
    ["eddy"],
    "the decision ran in the pair's message",
  );
  assert.ok(firstTry.some((c) => c.kind === "dialogue_line"), "and the conversation");
  assert.equal((await conversationsOf(deps, id)).length, 1);
  const [retry] = queue.take("step");
  assert.equal((retry as TickMessage & { attempt: number }).attempt, 2, "the message is retried");

  // The retry, a duplicate of the first delivery, then the other messages.
  const beforeRetry = calls.length;
  for (const m of [retry, pair, ...steps.filter((m) => m !== pair)]) {
    await consumeTickMessage(deps, m, queue);
  }
  assert.deepEqual(
    calls.slice(beforeRetry).filter((c) => TALK_KINDS.has(c.kind)),
    [],
    "the retry read the pair's decision back",
  );
  const conversations = await conversationsOf(deps, id);
  assert.equal(conversations.length, 1, "one conversation stored");
  const result = (await readTick(deps, id, "t1")).result!;
  const eddy = result.steps.find((s) => s.agentId === "eddy")!;
  assert.equal(eddy.reacted, "talk");
  assert.equal(eddy.conversationId, conversations[0].value.id);
  assert.ok(result.steps.every((s) => s.error === undefined), JSON.stringify(result.steps));
  const talks = (await deps.storage.events.read(id, 0, 10_000)).filter((e) =>
    e.tickId === "t1" && e.type === "conversation"
  );
  assert.equal(talks.length, 1);
});

Deno.test("a pair's decision that fails is not kept: the decider's step is tried again, then reported as its agent_error", async () => {
  const { model: recording, calls } = recordingModel();
  const model: typeof recording = {
    info: recording.info,
    complete(prompt, attribution) {
      const answer = recording.complete(prompt, attribution);
      return prompt.kind === "reaction"
        ? answer.then(() => Promise.reject(new ModelUnavailableError("model_unavailable", "down")))
        : answer;
    },
  };
  await using deps = await makeTestDeps({ model });
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await tickWorld(deps, id, { tickId: "t0" });
  await startTick(deps, id, { tickId: "t1", queue, maxAttempts: 2 });
  for (let pending = queue.take("step"); pending.length > 0; pending = queue.take("step")) {
    for (const m of pending) await consumeTickMessage(deps, m, queue);
  }
  const reactions = calls.filter((c) => c.kind === "reaction");
  assert.deepEqual(reactions.map((c) => c.agentId), ["eddy", "eddy"], "decided again on the retry");
  const result = (await readTick(deps, id, "t1")).result!;
  assert.deepEqual(result.steps.filter((s) => s.error).map((s) => s.agentId), ["eddy"]);
  const errors = (await deps.storage.events.read(id, 0, 10_000)).filter((e) =>
    e.tickId === "t1" && e.type === "agent_error"
  );
  assert.deepEqual(errors.map((e) => [e.agentId, e.code]), [["eddy", "model_unavailable"]]);
});

Deno.test("a queued tick's step results live while it is open: the close or deleting the world removes them", async () => {
  await using deps = await makeTestDeps();
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await startTick(deps, id, { tickId: "t1", queue });
  // Every step but the last reports: the tick stays open with their results.
  const steps = queue.take("step");
  for (const m of steps.slice(0, -1)) await consumeTickMessage(deps, m, queue);
  const results = stepResults(deps, id, "t1");
  assert.ok(await results.get("#reported"), "the open tick keeps its results' count");
  await deleteWorld(deps, id);
  assert.equal(await results.get("#reported"), null);
});
