/**
 * Queued ticks around their close: the plan each process keeps in memory, the count of reported
 * steps that tells one message to close, and a close left to whoever holds the tick lease.
 */
import assert from "node:assert/strict";
import type { Deps } from "../../../src/ports/deps.ts";
import type { AgentId, WorldId } from "../../../src/domain/ids.ts";
import { stepResults, stepScope } from "../../../src/app/engine/tick_store.ts";
import type { Storage } from "../../../src/ports/storage.ts";
import {
  type CommitRequest,
  type UnitOfWorkStore,
  versionConflict,
} from "../../../src/ports/unit_of_work_store.ts";
import { consumeTickMessage, readTick, startTick } from "../../../src/app/simulation/tick_world.ts";
import { getWorld } from "../../../src/app/world/world_store.ts";
import { makeTestDeps } from "../../_helpers/test_deps.ts";
import { makeTown, recordingModel } from "../domain/_town_fixture.ts";
import { HeldQueue } from "../simulation/_held_queue.ts";

/** The same store as another process sees it: it keeps its own copies of open ticks' plans. */
function otherProcess(deps: Deps): Deps {
  const storage = new Proxy(deps.storage, {
    get(target, name) {
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Storage;
  return { ...deps, storage };
}

async function agentVersions(deps: Deps, id: WorldId): Promise<number[]> {
  return (await deps.storage.documents.list("agents", id)).map((d) => d.version);
}

Deno.test("a step message delivered after its tick closed steps nothing in a process that kept the plan, even once the step results are gone", async () => {
  const { model, calls } = recordingModel();
  await using deps = await makeTestDeps({ model });
  const other = otherProcess(deps);
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await startTick(deps, id, { tickId: "late", queue });
  const steps = queue.take("step");
  assert.ok(steps.length >= 2, `${steps.length} step messages`);
  await consumeTickMessage(other, steps[0], queue); // the other process keeps the plan
  for (const m of steps.slice(1)) await consumeTickMessage(deps, m, queue);
  assert.equal((await readTick(deps, id, "late")).status, "done");

  // The close cleared the step results: the world's clock tells a late step the tick is over.
  await deps.storage.idempotency.clear(stepScope(id));
  const before = {
    calls: calls.length,
    events: (await deps.storage.events.read(id, 0, 10_000)).length,
    clock: (await getWorld(deps, id)).clock.now,
    agents: await agentVersions(deps, id),
  };
  queue.sent = [];
  for (const m of steps) await consumeTickMessage(other, m, queue);
  assert.deepEqual({
    calls: calls.length,
    events: (await deps.storage.events.read(id, 0, 10_000)).length,
    clock: (await getWorld(deps, id)).clock.now,
    agents: await agentVersions(deps, id),
  }, before);
  assert.deepEqual(queue.sent, [], "no retry, no check");
  const first = (await deps.storage.documents.list<{ id: AgentId }>("agents", id))[0].value.id;
  assert.equal(await stepResults(deps, id, "late").get(first), null, "no result claimed");
});

Deno.test("the message completing a tick leaves the close to the holder of the tick lease, quietly; the tick's check closes it", async () => {
  await using deps = await makeTestDeps();
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await startTick(deps, id, { tickId: "held", queue });
  const steps = queue.take("step");
  const [check] = queue.take("close");
  for (const m of steps.slice(0, -1)) await consumeTickMessage(deps, m, queue);
  const lease = await deps.storage.locks.acquire(`tick:${id}`, 60_000);
  assert.ok(lease);
  // Reports its step (the count completes the tick) and returns: no error to redeliver on.
  await consumeTickMessage(deps, steps.at(-1)!, queue);
  assert.equal((await readTick(deps, id, "held")).status, "running");
  assert.equal(await stepResults(deps, id, "held").get("#reported"), 3);
  await deps.storage.locks.release(lease);

  await consumeTickMessage(deps, check, queue);
  const done = await readTick(deps, id, "held");
  assert.equal(done.status, "done");
  assert.equal(done.result!.steps.length, 3);
  const ticks = (await deps.storage.events.read(id, 0, 10_000)).filter((e) => e.type === "tick");
  assert.equal(ticks.length, 1);
  assert.deepEqual(queue.take("close"), [], "closed: the check does not come again");
});

/** Deps whose store refuses the commits `refuse` picks. */
function refusing(deps: Deps, refuse: (request: CommitRequest) => Error | null): Deps {
  const inner = deps.storage.units;
  const units: UnitOfWorkStore = {
    begin: (request) => inner.begin(request),
    commit(request) {
      const error = refuse(request);
      return error ? Promise.reject(error) : inner.commit(request);
    },
  };
  const storage = new Proxy(deps.storage, {
    get(target, name) {
      if (name === "units") return units;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Storage;
  return { ...deps, storage };
}

Deno.test("a step that keeps throwing is reported once, and its report counts: the step messages alone close the tick", async () => {
  await using base = await makeTestDeps();
  // Never the step of John (a failure report, which holds no lease, commits).
  const deps = refusing(
    base,
    (request) =>
      request.fences.length > 0 && request.claim?.key.endsWith("/john")
        ? new Error("the store went away")
        : null,
  );
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await startTick(deps, id, { tickId: "throws", queue, maxAttempts: 2 });
  queue.take("close"); // never delivered: the count alone closes
  for (let pending = queue.take("step"); pending.length > 0; pending = queue.take("step")) {
    for (const m of pending) await consumeTickMessage(deps, m, queue);
  }
  const done = await readTick(deps, id, "throws");
  assert.equal(done.status, "done");
  const john = done.result!.steps.find((s) => s.agentId === "john")!;
  assert.ok(john.error, "reported as failed");
  assert.equal(done.result!.steps.length, 3, "each unit once");
  assert.equal(
    await stepResults(deps, id, "throws").get("#reported"),
    null,
    "cleared at the close",
  );
});

Deno.test("a close whose commit finds the world changed (a PATCH meanwhile) reads it again and closes", async () => {
  await using base = await makeTestDeps();
  let refused = 0;
  const deps = refusing(base, (request) => {
    const closing = request.fences.some((lease) => lease.key.startsWith("tick:"));
    if (!closing || refused > 0) return null;
    refused++;
    return versionConflict(request.documents[0].key);
  });
  const queue = new HeldQueue();
  const id = await makeTown(deps);
  await startTick(deps, id, { tickId: "patched", queue });
  for (const m of queue.take("step")) await consumeTickMessage(deps, m, queue);
  assert.equal(refused, 1);
  assert.equal((await readTick(deps, id, "patched")).status, "done");
  assert.equal((await getWorld(deps, id)).clock.now, "2023-02-13T07:00:00");
});
