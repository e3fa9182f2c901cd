import assert from "node:assert/strict";
import type { Deps } from "../../../../src/ports/deps.ts";
import { AgentId, MemoryId, WorldId } from "../../../../src/domain/ids.ts";
import { rankMemories } from "../../../../src/app/memory/retrieval.ts";
import { type RepairReport, repairStore } from "../../../../src/app/memory/repair.ts";
import { SimulacraError } from "../../../../src/domain/errors.ts";
import { rejectionOf } from "../../../_helpers/rejection.ts";
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

/**
 * A world of `agents` (2 seed memories each) as a crash could leave it: agent `lost` has a
 * memory without a vector, agent `orphan` a vector without a memory.
 */
async function brokenWorld(
  deps: Deps,
  agents: readonly string[],
  { lost, orphan }: { lost: string; orphan: string },
): Promise<WorldId> {
  const worldId = await freshWorld(deps);
  for (const id of agents) {
    await createAgent(
      deps,
      worldId,
      CreateAgentInput.parse({ id, name: id, description: `${id} sails; ${id} rows` }),
    );
  }
  const a = { worldId, agentId: AgentId.parse(lost) };
  await deps.storage.memories.append(a, [makeMemory(a, "lost", { description: "Fog" })]);
  const b = { worldId, agentId: AgentId.parse(orphan) };
  const vector = (await deps.embedder.embed(["never stored"], { operation: "t" })).vectors[0];
  await deps.storage.vectors.upsert(b, [{ id: MemoryId.parse("orphan"), vector }]);
  return worldId;
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
      const worldId = await brokenWorld(deps, ["ann", "bob", "cy"], { lost: "bob", orphan: "cy" });

      const report = await repairStore(deps, { worlds: [worldId], quick: true });
      assert.deepEqual(report, {
        worlds: 1,
        agents: 3,
        memories: 7,
        reembedded: 1,
        orphanVectorsDeleted: 1,
        swept: 2,
        done: 3,
        cursor: null,
      });
      const again = await repairStore(deps, { worlds: [worldId], quick: true });
      assert.equal(again.swept, 0, "counts agree everywhere now");
      assert.equal(again.memories, 7);
    },
  });

  Deno.test({
    name:
      `[${backend.name}] repairStore({ limit }) sweeps in steps, each call continuing from the cursor of the last`,
    ...sanitizersFor(backend),
    async fn() {
      await using deps = await makeTestDeps({ storage: await backend.open() });
      // Created out of order: the sweep goes by id.
      const agents = ["dee", "bob", "ann", "cy"];
      const worldId = await brokenWorld(deps, agents, { lost: "bob", orphan: "dee" });

      const pages: RepairReport[] = [];
      let cursor: string | undefined;
      do {
        const page = await repairStore(deps, { worlds: [worldId], limit: 1, cursor });
        pages.push(page);
        cursor = page.cursor ?? undefined;
      } while (cursor !== undefined && pages.length < 10);
      const at = (agent: string) => `${worldId}/${agent}`;
      assert.deepEqual(pages.map((p) => p.cursor), [at("ann"), at("bob"), at("cy"), null]);
      assert.deepEqual(pages.map((p) => [p.done, p.agents, p.swept]), [
        [1, 4, 1],
        [2, 4, 1],
        [3, 4, 1],
        [4, 4, 1],
      ]);
      assert.deepEqual(pages.map((p) => p.memories), [2, 3, 2, 2]);
      assert.deepEqual(pages.map((p) => p.reembedded), [0, 1, 0, 0]);
      assert.deepEqual(pages.map((p) => p.orphanVectorsDeleted), [0, 0, 0, 1]);

      // A call stops once the agents it swept hold `limit` memories: ann's 2, then bob's 3.
      const first = await repairStore(deps, { worlds: [worldId], limit: 4 });
      assert.deepEqual([first.swept, first.memories, first.done, first.cursor], [
        2,
        5,
        2,
        at("bob"),
      ]);
      const rest = await repairStore(deps, { worlds: [worldId], limit: 4, cursor: first.cursor! });
      assert.deepEqual([rest.swept, rest.done, rest.cursor], [2, 4, null]);
      const past = await repairStore(deps, { worlds: [worldId], cursor: at("zed") });
      assert.deepEqual([past.swept, past.done, past.cursor], [0, 4, null]);
      const error = await rejectionOf(
        repairStore(deps, { worlds: [worldId], cursor: "not a cursor" }),
        SimulacraError,
      );
      assert.equal(error.code, "invalid_request");
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
