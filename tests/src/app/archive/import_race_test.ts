/**
 * An import and a creation of the same world id never mix, on both backends: while an import
 * runs, creating that world fails (and agents cannot be created in it: it does not exist yet);
 * an import that lost its hold on the id leaves nothing behind.
 */
import assert from "node:assert/strict";
import { CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import { listAgents } from "../../../../src/app/agents/agent_store.ts";
import { exportWorld } from "../../../../src/app/archive/export_world.ts";
import { importWorld } from "../../../../src/app/archive/import_world.ts";
import type { Deps } from "../../../../src/ports/deps.ts";
import { ConflictError, LeaseLostError, SimulacraError } from "../../../../src/domain/errors.ts";
import { AgentId, WorldId } from "../../../../src/domain/ids.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import type { Lease, Lock } from "../../../../src/ports/lock.ts";
import type { Storage } from "../../../../src/ports/storage.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { createWorld, getWorld } from "../../../../src/app/world/world_store.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { startBackends } from "../../../_helpers/backends.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";

const { backends, close } = await startBackends();

/** The lines of a small world's export: two agents with seed memories. */
async function archive(): Promise<string[]> {
  await using deps = await makeTestDeps();
  const world = await createWorld(
    deps,
    CreateWorldInput.parse({ id: "source", name: "Source", startTime: "2023-02-13T07:00:00" }),
  );
  for (const id of ["ann", "bob"]) {
    await createAgent(
      deps,
      world.id,
      CreateAgentInput.parse({ id, name: id, description: `${id} bakes bread; ${id} likes tea` }),
    );
  }
  return await Array.fromAsync(exportWorld(deps, world.id));
}

/** The lines, stopping before the first memory line until `resume` is called. */
function paused(lines: readonly string[]) {
  let resume!: () => void;
  const resumed = new Promise<void>((resolve) => (resume = resolve));
  let reached!: () => void;
  const atPause = new Promise<void>((resolve) => (reached = resolve));
  async function* read() {
    for (const line of lines) {
      if (line.startsWith('{"type":"memory"') && reached) {
        reached();
        reached = undefined!;
        await resumed;
      }
      yield line;
    }
  }
  return { lines: read(), atPause, resume };
}

const WORLD = WorldId.parse("raced");

async function nothingOf(deps: Deps, worldId: WorldId): Promise<void> {
  await assert.rejects(getWorld(deps, worldId), (e: unknown) => e instanceof SimulacraError);
  assert.deepEqual(await listAgents(deps, worldId), []);
  assert.deepEqual(await deps.storage.documents.list("agents", worldId), []);
  for (const agentId of ["ann", "bob"]) {
    assert.equal(
      await deps.storage.memories.count({ worldId, agentId: AgentId.parse(agentId) }),
      0,
    );
  }
}

/** The storage, remembering the world creation leases it hands out so a test can take one over. */
function watchingCreationLeases(storage: Storage): { storage: Storage; leases: Lease[] } {
  const leases: Lease[] = [];
  const locks: Lock = {
    async acquire(key, ttl) {
      const lease = await storage.locks.acquire(key, ttl);
      if (lease && key.startsWith("world-create:")) leases.push(lease);
      return lease;
    },
    renew: (lease, ttl) => storage.locks.renew(lease, ttl),
    release: (lease) => storage.locks.release(lease),
  };
  const watched = new Proxy(storage, {
    get: (target, name) => {
      if (name === "locks") return locks;
      const value = Reflect.get(target, name, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { storage: watched, leases };
}

const lines = await archive();

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] creating a world that is being imported fails; the import stands whole`,
    ...sanitizersFor(backend),
    fn: async () => {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const file = paused(lines);
      const importing = importWorld(deps, file.lines, { id: WORLD });
      await file.atPause;
      await assert.rejects(
        createWorld(
          deps,
          CreateWorldInput.parse({ id: WORLD, name: "Mine", startTime: "2023-01-01T08:00:00" }),
        ),
        (e: unknown) => e instanceof ConflictError && /being imported/.test(e.message),
      );
      await assert.rejects(
        createAgent(
          deps,
          WORLD,
          CreateAgentInput.parse({ id: "ann", name: "Other Ann", description: "x" }),
        ),
        (e: unknown) => e instanceof SimulacraError && e.code === "world_not_found",
      );
      file.resume();
      const result = await importing;
      assert.equal(result.world.name, "Source");
      const agents = await listAgents(deps, WORLD);
      assert.deepEqual(agents.map((a) => [a.id, a.name]), [["ann", "ann"], ["bob", "bob"]]);
      // Once imported, the id is an ordinary taken id.
      await assert.rejects(
        createWorld(
          deps,
          CreateWorldInput.parse({ id: WORLD, name: "Mine", startTime: "2023-01-01T08:00:00" }),
        ),
        (e: unknown) => e instanceof ConflictError && /exists already/.test(e.message),
      );
    },
  });

  Deno.test({
    name: `[${backend.name}] an import that lost its hold on the world id leaves nothing behind`,
    ...sanitizersFor(backend),
    fn: async () => {
      const storage = await backend.open();
      const watched = watchingCreationLeases(storage);
      await using deps = await makeTestDeps({ storage: watched.storage });
      const file = paused(lines);
      const importing = importWorld(deps, file.lines, { id: WORLD });
      await file.atPause;
      assert.ok((await deps.storage.documents.list("agents", WORLD)).length > 0, "Agents staged");
      // The import's lease is lost (as after a stall longer than its TTL) and taken over.
      assert.equal(await storage.locks.release(watched.leases[0]), true);
      const other = await storage.locks.acquire(watched.leases[0].key, 30_000);
      assert.ok(other);
      file.resume();
      await assert.rejects(importing, (e: unknown) => e instanceof LeaseLostError);
      await nothingOf(deps, WORLD);
    },
  });
}

Deno.test({
  name: "import race tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
