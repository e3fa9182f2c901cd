/**
 * Plan documents and conversations are written under a lease: a holder that lost it (its lease
 * expired during a stall and someone else took it) writes nothing, on both backends.
 */
import assert from "node:assert/strict";
import { inTransaction } from "../../../_helpers/agent_transaction.ts";
import { CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import { converse } from "../../../../src/app/cognition/dialogue.ts";
import type { DayPlan } from "../../../../src/domain/plan/plan.ts";
import { planKey } from "../../../../src/app/cognition/plan_store.ts";
import { makeDayPlan, replanFrom } from "../../../../src/app/cognition/planning.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { LeaseLostError } from "../../../../src/domain/errors.ts";
import type { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import type { Lease, Lock } from "../../../../src/ports/lock.ts";
import type { Storage } from "../../../../src/ports/storage.ts";
import { CreateWorldInput, type World } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { startBackends } from "../../../_helpers/backends.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

const DATE = "2023-02-13";

async function town(deps: Deps): Promise<World> {
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ name: "Fenced", startTime: `${DATE}T07:00:00` }),
  );
  for (const [id, name] of [["ann", "Ann Lee"], ["bob", "Bob Roy"]]) {
    await createAgent(
      deps,
      world.id as WorldId,
      CreateAgentInput.parse({ id, name, description: `${name} runs the bakery on Main Street` }),
    );
  }
  return world;
}

/** A lease on `key` that expired and was taken over by another holder. */
async function lostLease(storage: Storage, key: string): Promise<Lease> {
  const lease = await storage.locks.acquire(key, 100);
  assert.ok(lease);
  // Real time: the lease expires in each real backend's store.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.ok(await storage.locks.acquire(key, 30_000), "Taken over");
  return lease;
}

async function agentOf(deps: Deps, world: World, id: string) {
  const doc = await deps.storage.documents.get<
    import("../../../../src/domain/agent/agent.ts").Agent
  >({
    collection: "agents",
    scope: world.id,
    id,
  });
  return doc!.value;
}

async function memoriesOf(deps: Deps, world: World, agentId: string, kind: string) {
  const all = await deps.storage.memories.all({
    worldId: world.id as WorldId,
    agentId: agentId as AgentId,
  });
  return all.filter((m) => m.kind === kind);
}

/**
 * The storage with its agent lock for `agentId` handed out as a lease another holder took over:
 * the store sees another token than the one it holds, as after an expiry and a takeover.
 */
function losingAgentLock(storage: Storage, agentId: string): Storage {
  const stale = new Map<string, Lease>();
  const hand = (lease: Lease | null): Lease | null => {
    if (!lease || !lease.key.endsWith(`:${agentId}`)) return lease;
    const handed = { key: lease.key, token: `taken-over-${lease.token}` };
    stale.set(handed.token, lease);
    return handed;
  };
  const locks: Lock = {
    acquire: async (key, ttl) => hand(await storage.locks.acquire(key, ttl)),
    // The holder does not notice: its renewals seem to work, only its writes are refused.
    renew: (lease, ttl) =>
      stale.has(lease.token) ? Promise.resolve(true) : storage.locks.renew(lease, ttl),
    release: (lease) => storage.locks.release(stale.get(lease.token) ?? lease),
  };
  const units = {
    begin: async (request: Parameters<Storage["units"]["begin"]>[0]) => {
      const begun = await storage.units.begin(request);
      return { ...begun, leases: begun.leases.map(hand) };
    },
    commit: storage.units.commit.bind(storage.units),
  };
  return new Proxy(storage, {
    get: (target, name) => {
      if (name === "locks") return locks;
      // A unit of work takes its leases in its begin round trip: handed out the same way.
      if (name === "units") return { ...target.units, begin: units.begin, commit: units.commit };
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

for (const backend of backends) {
  Deno.test({
    name: `[${backend.name}] a plan write under a lost lease writes nothing`,
    ...sanitizersFor(backend),
    fn: async () => {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const world = await town(deps);
      const ann = await agentOf(deps, world, "ann");
      const key = planKey(world.id, "ann", DATE);
      const lost = await lostLease(deps.storage, `agent:${world.id}:ann`);

      await assert.rejects(
        makeDayPlan(deps, { world, agent: ann }, { date: DATE, fence: lost }),
        (e: unknown) => e instanceof LeaseLostError,
      );
      assert.equal(await deps.storage.documents.get(key), null, "No plan document");
      assert.deepEqual(await memoriesOf(deps, world, "ann", "plan"), [], "No plan memories");

      // A stored plan is not re-planned by the holder that lost its lease either.
      await makeDayPlan(deps, { world, agent: ann }, { date: DATE });
      const planned = (await memoriesOf(deps, world, "ann", "plan")).length;
      await assert.rejects(
        replanFrom(deps, { world, agent: ann }, {
          from: `${DATE}T12:00:00`,
          reason: "it rained",
          fence: lost,
        }),
        (e: unknown) => e instanceof LeaseLostError,
      );
      const stored = await deps.storage.documents.get<DayPlan>(key);
      assert.equal(stored?.value.revision, 1, "The plan stays as it was");
      assert.equal((await memoriesOf(deps, world, "ann", "plan")).length, planned);
    },
  });

  Deno.test({
    name: `[${backend.name}] a conversation whose lock was lost writes nothing of the talk`,
    ...sanitizersFor(backend),
    fn: async () => {
      const storage = await backend.open();
      // Bob's lease is the one lost: Ann's memories are written first, then taken back.
      await using deps = await makeTestDeps({ storage: losingAgentLock(storage, "bob") });
      const world = await town(deps);
      const [ann, bob] = [await agentOf(deps, world, "ann"), await agentOf(deps, world, "bob")];
      await assert.rejects(
        inTransaction(
          deps,
          { world, agents: [ann, bob] },
          (tx) => converse(deps, tx, { at: `${DATE}T09:00:00` as never, topic: "bread" }),
        ),
        (e: unknown) => e instanceof LeaseLostError,
      );
      for (const id of ["ann", "bob"]) {
        assert.deepEqual(await memoriesOf(deps, world, id, "chat"), [], `No chat memory of ${id}`);
        assert.equal((await agentOf(deps, world, id)).importanceSinceReflection, 0);
      }
      assert.deepEqual(await deps.storage.documents.list("conversations", world.id), []);
      assert.deepEqual(await deps.storage.documents.list("conversation_state", world.id), []);
    },
  });
}

Deno.test({
  name: "fenced writes tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
