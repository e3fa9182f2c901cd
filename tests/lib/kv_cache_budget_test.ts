import assert from "node:assert/strict";
import { CacheBudget } from "../../lib/kv/_cache_budget.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import type { AgentId, AgentScope, MemoryId, WorldId } from "../../src/domain/ids.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import { rankMemories } from "../../src/app/memory/retrieval.ts";
import { resolveWeights } from "../../src/domain/world/retrieval_weights.ts";
import { addMinutes, type GameTime } from "../../src/domain/time/game_time.ts";

Deno.test("CacheBudget evicts least recently used items past its budget, never the one just used", () => {
  const budget = new CacheBudget(100);
  const evicted: string[] = [];
  const use = (key: string, bytes: number) =>
    budget.use(key, { bytes, evict: () => evicted.push(key) });
  use("a", 40);
  use("b", 40);
  use("a", 40); // a is now the most recent
  use("c", 40); // 120 > 100: b goes, not a
  assert.deepEqual(evicted, ["b"]);
  assert.equal(budget.totalBytes, 80);
  use("big", 500); // larger than the budget: everything else goes, it stays
  assert.deepEqual(evicted, ["b", "a", "c"]);
  assert.equal(budget.size, 1);
  budget.forget("big");
  assert.equal(budget.totalBytes, 0);
  use("d", 10);
  assert.deepEqual(evicted, ["b", "a", "c"], "forgotten items are not evicted again");
});

Deno.test("CacheBudget keeps every item of the owner just used (an agent's memories and vectors)", () => {
  const budget = new CacheBudget(100);
  const evicted: string[] = [];
  const use = (key: string, owner: string, bytes: number) =>
    budget.use(key, { bytes, evict: () => evicted.push(key), owner });
  use("mem:x", "x", 30);
  use("mem:big", "big", 80);
  use("vec:big", "big", 80); // 190 > 100: x goes, and the agent's memories stay with its vectors
  assert.deepEqual(evicted, ["mem:x"]);
  use("mem:big", "big", 80); // used again, both still cached: nothing to reload
  assert.deepEqual(evicted, ["mem:x"]);
  assert.equal(budget.size, 2);
});

const T0 = "2023-02-13T07:00:00" as GameTime;
const embedder = new LocalEmbedder({ dimensions: 384 });

function memories(scope: AgentScope, count: number): MemoryRecord[] {
  const topics = ["the election", "the party", "rent", "a cat", "jazz", "an exam"];
  return Array.from({ length: count }, (_, n) => ({
    id: `m${n}` as MemoryId,
    worldId: scope.worldId,
    agentId: scope.agentId,
    kind: "observation" as const,
    description: `${scope.agentId} heard about ${topics[n % 6]} (${n})`,
    createdAt: addMinutes(T0, n),
    lastAccessedAt: addMinutes(T0, n),
    importance: 1 + (n % 9),
    provenance: "witnessed" as const,
  }));
}

Deno.test("KvStorage drops least recently used agents past SIMULACRA_CACHE_MB and reloads them intact", async () => {
  const path = await Deno.makeTempFile({ suffix: ".kv" });
  // Room for one agent of 200 memories (~560 KB estimated with its vectors), not two.
  const storage = await openKvStorage({ path, dimensions: 384, cacheBytes: 700_000 });
  try {
    const scopes: AgentScope[] = Array.from({ length: 5 }, (_, i) => ({
      worldId: "w" as WorldId,
      agentId: `agent${i}` as AgentId,
    }));
    const query = embedder.vector("the election");
    const options = {
      at: addMinutes(T0, 300),
      weights: resolveWeights("paper"),
      decay: 0.995,
      k: 5,
    };
    const before: string[][] = [];
    for (const scope of scopes) {
      const records = memories(scope, 200);
      await storage.memories.append(scope, records);
      const { vectors } = await embedder.embed(records.map((r) => r.description), {
        operation: "test",
      });
      await storage.vectors.upsert(
        scope,
        records.map((r, i) => ({ id: r.id, vector: vectors[i] })),
      );
      await storage.memories.touch(scope, [records[0].id], addMinutes(T0, 250));
      const { ranked } = await rankMemories({ storage, embedder }, scope, {
        query: query,
        ...options,
      });
      before.push(ranked.map((s) => s.memory.id));
      assert.ok(
        storage.cache.bytes <= storage.cache.maxBytes || storage.cache.items <= 2,
        JSON.stringify(storage.cache),
      );
    }
    assert.ok(
      storage.cache.items <= 2,
      `Only the last agent stays: ${JSON.stringify(storage.cache)}`,
    );

    // Every agent reads back the same after its caches were dropped and reloaded.
    for (const [i, scope] of scopes.entries()) {
      const all = await storage.memories.all(scope);
      assert.equal(all.length, 200);
      assert.equal(all[0].lastAccessedAt, addMinutes(T0, 250), "a touch survives the reload");
      assert.deepEqual(await storage.memories.top(scope, "lastAccessed", 1), ["m0"]);
      const { ranked } = await rankMemories({ storage, embedder }, scope, {
        query: query,
        ...options,
      });
      assert.deepEqual(ranked.map((s) => s.memory.id), before[i]);
      assert.ok(ranked.every((s) => s.memory.agentId === scope.agentId));
    }
  } finally {
    await storage.close();
    await Deno.remove(path);
  }
});

Deno.test("KvStorage keeps an agent larger than its cache budget whole: retrieval reloads nothing", async () => {
  // 200 memories with vectors are ~560 KB estimated: over this budget on their own.
  const storage = await openKvStorage({ dimensions: 384, cacheBytes: 300_000 });
  try {
    const scope: AgentScope = { worldId: "w" as WorldId, agentId: "big" as AgentId };
    const records = memories(scope, 200);
    await storage.memories.append(scope, records);
    const { vectors } = await embedder.embed(records.map((r) => r.description), {
      operation: "test",
    });
    await storage.vectors.upsert(scope, records.map((r, i) => ({ id: r.id, vector: vectors[i] })));
    const options = {
      at: addMinutes(T0, 300),
      weights: resolveWeights("paper"),
      decay: 0.995,
      k: 5,
    };
    await rankMemories({ storage, embedder }, scope, {
      query: embedder.vector("jazz"),
      ...options,
    });
    // Its memory stream and its vector slab are both kept: before, each use of one evicted the
    // other, so every retrieval of a large agent reloaded it from the KV file (1.9 s at 100,000).
    assert.equal(storage.cache.items, 2, JSON.stringify(storage.cache));
    await rankMemories({ storage, embedder }, scope, {
      query: embedder.vector("rent"),
      ...options,
    });
    assert.equal(storage.cache.items, 2, JSON.stringify(storage.cache));
  } finally {
    await storage.close();
  }
});

Deno.test("openKvStorage() rejects a cache budget that is not a positive integer", async () => {
  for (const cacheBytes of [0, -5, 1.5]) {
    await assert.rejects(openKvStorage({ dimensions: 8, cacheBytes }), /Cannot budget/);
  }
});
