import assert from "node:assert/strict";
import type { Deps } from "../../../../src/ports/deps.ts";
import { AgentId, MemoryId, WorldId } from "../../../../src/domain/ids.ts";
import { rankMemories } from "../../../../src/app/memory/retrieval.ts";
import { repairStore } from "../../../../src/app/memory/repair.ts";
import { createAgent } from "../../../../src/app/lifecycle/create_agent.ts";
import { CreateWorldInput } from "../../../../src/domain/world/world.ts";
import { createWorld } from "../../../../src/app/world/world_store.ts";
import { CreateAgentInput } from "../../../../src/domain/agent/agent.ts";
import { resolveWeights } from "../../../../src/domain/world/retrieval_weights.ts";
import { sanitizersFor } from "../../../_helpers/backend_app.ts";
import { startBackends } from "../../../_helpers/backends.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { makeMemory } from "../../../contracts/_contract_support.ts";

const { backends, close } = await startBackends();

/** A world of its own (the hosted backend's store is shared by the cases). */
async function freshWorld(deps: Deps): Promise<WorldId> {
  const id = WorldId.parse(`w${crypto.randomUUID().slice(0, 8)}`);
  await createWorld(
    deps,
    CreateWorldInput.parse({ id, name: "Repair", startTime: "2023-02-13T07:00:00" }),
  );
  return id;
}

for (const backend of backends) {
  Deno.test({
    name:
      `[${backend.name}] repairStore() embeds memories that lost their vector and deletes orphan vectors`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const worldId = await freshWorld(deps);
      await createAgent(
        deps,
        worldId,
        CreateAgentInput.parse({ id: "ann", name: "Ann", description: "Ann sails" }),
      );
      const scope = { worldId, agentId: AgentId.parse("ann") };
      // As a crash between the two stores could leave them: records without vectors, and a
      // vector whose record never came.
      const lost = ["The ferry left at dawn", "A violin played in the square"].map((d, i) =>
        makeMemory(scope, `lost-${i}`, { description: d })
      );
      await deps.storage.memories.append(scope, lost);
      const orphan = (await deps.embedder.embed(["never stored"], { operation: "t" })).vectors[0];
      await deps.storage.vectors.upsert(scope, [{ id: MemoryId.parse("orphan"), vector: orphan }]);

      const report = await repairStore(deps, { worlds: [worldId] });
      assert.equal(report.reembedded, 2);
      assert.equal(report.orphanVectorsDeleted, 1);
      const ids = new Set(await deps.storage.vectors.ids(scope));
      assert.ok(ids.has(MemoryId.parse("lost-0")) && ids.has(MemoryId.parse("lost-1")));
      assert.ok(!ids.has(MemoryId.parse("orphan")));
      const again = await repairStore(deps, { worlds: [worldId] });
      assert.equal(again.reembedded + again.orphanVectorsDeleted, 0, "nothing left to fix");
    },
  });

  Deno.test({
    name:
      `[${backend.name}] repairStore({ quick }) sweeps only the agents whose memory and vector counts differ`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const worldId = await freshWorld(deps);
      for (const id of ["ann", "bob", "cy"]) {
        await createAgent(
          deps,
          worldId,
          CreateAgentInput.parse({ id, name: id, description: `${id} sails; ${id} rows` }),
        );
      }
      const bob = { worldId, agentId: AgentId.parse("bob") };
      await deps.storage.memories.append(bob, [makeMemory(bob, "lost", { description: "Fog" })]);
      const cy = { worldId, agentId: AgentId.parse("cy") };
      const orphan = (await deps.embedder.embed(["never stored"], { operation: "t" })).vectors[0];
      await deps.storage.vectors.upsert(cy, [{ id: MemoryId.parse("orphan"), vector: orphan }]);

      const report = await repairStore(deps, { worlds: [worldId], quick: true });
      assert.deepEqual(report, {
        worlds: 1,
        agents: 3,
        memories: 7,
        reembedded: 1,
        orphanVectorsDeleted: 1,
        swept: 2,
      });
      const again = await repairStore(deps, { worlds: [worldId], quick: true });
      assert.equal(again.swept, 0, "counts agree everywhere now");
      assert.equal(again.memories, 7);
    },
  });

  Deno.test({
    name:
      `[${backend.name}] rankMemories() embeds a memory without a vector instead of scoring it 0`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      const worldId = WorldId.parse(`w${crypto.randomUUID().slice(0, 8)}`);
      const scope = { worldId, agentId: AgentId.parse("ann") };
      const lost = makeMemory(scope, "lost", { description: "The lighthouse keeper waved" });
      await deps.storage.memories.append(scope, [lost]);
      const query = (await deps.embedder.embed([lost.description], { operation: "t" })).vectors[0];
      const { ranked } = await rankMemories(deps, scope, {
        query: query,
        at: lost.createdAt,
        weights: resolveWeights("paper"),
        decay: 0.995,
        k: 1,
      });
      assert.equal(ranked[0].memory.id, "lost");
      assert.ok(ranked[0].raw.cosine > 0.99, `cosine ${ranked[0].raw.cosine}`);
      assert.equal((await deps.storage.vectors.ids(scope)).length, 1, "and stored its vector");
    },
  });
}

Deno.test({
  name: "repair tests: stop the hosted backend's servers",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: close,
});
