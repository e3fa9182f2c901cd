/** @module Contract cases of the removal methods every store has (deleting worlds, agents, memories). */
import assert from "node:assert/strict";
import {
  type ContractCases,
  makeMemories,
  mid,
  newScope,
  newWorldId,
  suffix,
  usage,
} from "./_contract_support.ts";

function unit(dimensions: number, index: number): Float32Array {
  const v = new Float32Array(dimensions);
  v[index % dimensions] = 1;
  return v;
}

/** Registers the removal cases. */
export function removalContract(cases: ContractCases): void {
  cases.add(
    "DocumentStore.deleteAll() empties one collection in one scope, nothing else",
    async (s) => {
      const scope = `s-${suffix()}`;
      const col = `c-${suffix()}`;
      await s.documents.create({ collection: col, scope, id: "a" }, { n: 1 });
      await s.documents.create({ collection: col, scope, id: "b" }, { big: "x".repeat(70_000) });
      await s.documents.create({ collection: col, scope: `${scope}x`, id: "a" }, { n: 2 });
      await s.documents.create({ collection: `${col}x`, scope, id: "a" }, { n: 3 });
      assert.equal(await s.documents.deleteAll(col, scope), 2);
      assert.deepEqual(await s.documents.list(col, scope), []);
      assert.equal(await s.documents.get({ collection: col, scope, id: "b" }), null);
      assert.equal((await s.documents.list(col, `${scope}x`)).length, 1);
      assert.equal((await s.documents.list(`${col}x`, scope)).length, 1);
      assert.equal(await s.documents.deleteAll(col, scope), 0);
      const again = await s.documents.create({ collection: col, scope, id: "a" }, { n: 4 });
      assert.equal(again.version, 1, "a document made again starts over");
    },
  );

  cases.add(
    "MemoryStore.remove() drops records from reads, lists, counts and every index",
    async (s) => {
      const scope = newScope();
      const other = newScope(scope.worldId);
      const memories = makeMemories(scope, "m", 6);
      await s.memories.append(scope, memories);
      await s.memories.append(other, makeMemories(other, "m", 2));
      await s.memories.touch(scope, [mid("m-001")], "2023-02-14T07:00:00" as never);
      const first = await s.memories.list(scope, { limit: 2, order: "asc" });
      assert.equal(await s.memories.remove(scope, [mid("m-001"), mid("m-002"), mid("nope")]), 2);
      assert.equal(await s.memories.get(scope, mid("m-001")), null);
      assert.deepEqual(
        (await s.memories.getMany(scope, [mid("m-000"), mid("m-002")])).map((m) => m?.id ?? null),
        ["m-000", null],
      );
      assert.equal(await s.memories.count(scope), 4);
      assert.deepEqual((await s.memories.all(scope)).map((m) => m.id), [
        "m-000",
        "m-003",
        "m-004",
        "m-005",
      ]);
      for (const index of ["created", "lastAccessed", "importance"] as const) {
        const top = await s.memories.top(scope, index, 10);
        assert.ok(!top.includes(mid("m-001")) && !top.includes(mid("m-002")), index);
        assert.equal(top.length, 4, index);
      }
      const kind = await s.memories.list(scope, { kind: "observation", limit: 10 });
      assert.equal(kind.memories.length, 4);
      // A cursor pointing at a removed memory still continues after it.
      const rest = await s.memories.list(scope, { limit: 10, order: "asc", cursor: first.next! });
      assert.deepEqual(rest.memories.map((m) => m.id), ["m-003", "m-004", "m-005"]);
      assert.equal(await s.memories.count(other), 2, "other agents keep theirs");
      assert.equal(await s.memories.remove(scope, [mid("m-001")]), 0);
      await s.memories.append(scope, [memories[1]]);
      assert.equal(
        (await s.memories.get(scope, mid("m-001")))?.id,
        "m-001",
        "the id is free again",
      );
    },
  );

  cases.add("MemoryStore.clear() removes an agent's whole stream, nothing else", async (s) => {
    const scope = newScope();
    const other = newScope(scope.worldId);
    await s.memories.append(scope, makeMemories(scope, "m", 5));
    await s.memories.append(other, makeMemories(other, "m", 3));
    await s.memories.clear(scope);
    assert.equal(await s.memories.count(scope), 0);
    assert.deepEqual(await s.memories.all(scope), []);
    assert.deepEqual(await s.memories.top(scope, "importance", 5), []);
    assert.deepEqual((await s.memories.list(scope, { limit: 5 })).memories, []);
    assert.equal(await s.memories.count(other), 3);
    await s.memories.clear(newScope());
    await s.memories.append(scope, makeMemories(scope, "m", 1));
    assert.equal(await s.memories.count(scope), 1, "a cleared agent can start again");
  });

  cases.add("VectorIndex.clear() removes a scope's vectors only", async (s) => {
    const scope = newScope();
    const other = newScope(scope.worldId);
    const d = s.vectors.dimensions;
    await s.vectors.upsert(scope, [{ id: mid("a"), vector: unit(d, 0) }, {
      id: mid("b"),
      vector: unit(d, 1),
    }]);
    await s.vectors.upsert(other, [{ id: mid("a"), vector: unit(d, 0) }]);
    await s.vectors.clear(scope);
    assert.deepEqual(await s.vectors.fetch(scope, [mid("a"), mid("b")]), []);
    assert.deepEqual(await s.vectors.query(scope, unit(d, 0), 5), []);
    assert.equal((await s.vectors.fetch(other, [mid("a")])).length, 1);
    await s.vectors.clear(newScope()); // a scope that never had vectors
    await s.vectors.upsert(scope, [{ id: mid("c"), vector: unit(d, 2) }]);
    assert.deepEqual((await s.vectors.query(scope, unit(d, 2), 5)).map((m) => m.id), ["c"]);
  });

  cases.add("IdempotencyStore.clear() forgets one scope's keys", async (s) => {
    const scope = `w-${suffix()}/a`;
    await s.idempotency.claim(scope, "k1", { value: { v: 1 } });
    await s.idempotency.put(scope, "k:2", { value: "x".repeat(70_000) });
    await s.idempotency.claim(`${scope}b`, "k1", { value: { v: 2 } });
    await s.idempotency.clear(scope);
    assert.equal(await s.idempotency.get(scope, "k1"), null);
    assert.equal(await s.idempotency.get(scope, "k:2"), null);
    assert.deepEqual(await s.idempotency.get(`${scope}b`, "k1"), { v: 2 });
    assert.equal((await s.idempotency.claim(scope, "k1", { value: { v: 3 } })).created, true);
  });

  cases.add(
    "UsageLedger.remove() drops a world's totals, or one agent's line only",
    async (s) => {
      const worldId = newWorldId();
      const other = newWorldId();
      await s.usage.add(usage({ worldId, agentId: "ann" }));
      await s.usage.add(usage({ worldId, agentId: "bob", operation: "plan" }));
      await s.usage.add(usage({ worldId: other, agentId: "ann" }));
      await s.usage.remove(worldId, { agentId: "ann" });
      const kept = await s.usage.totals(worldId);
      assert.deepEqual(Object.keys(kept.byAgent), ["bob"]);
      assert.equal(kept.total.calls, 2, "the world's bill keeps what the agent cost");
      assert.equal(kept.byOperation.importance.calls, 1);
      await s.usage.remove(worldId);
      assert.deepEqual(await s.usage.totals(worldId), {
        total: { calls: 0, promptTokens: 0, completionTokens: 0, cachedPromptTokens: 0 },
        byAgent: {},
        byOperation: {},
      });
      assert.equal((await s.usage.totals(other)).total.calls, 1);
    },
  );
}
