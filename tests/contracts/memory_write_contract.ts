/**
 * @module Contract cases of what a perceive needs of the memory store: writing memories with
 * what must go with them (the claims of `MemoryStore.append`, `Storage.memoryWriter` for
 * backends that have it) and reading the recent ones (`list`'s `since`).
 */
import assert from "node:assert/strict";
import type { AgentScope } from "../../src/domain/ids.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import type { Storage } from "../../src/ports/storage.ts";
import type { VectorEntry } from "../../src/ports/vector_index.ts";
import {
  assertRejectsCode,
  type ContractCases,
  makeMemories,
  newScope,
  suffix,
} from "./_contract_support.ts";

function claimOf(scope: AgentScope, memory: MemoryRecord) {
  return {
    scope: `${scope.worldId}/${scope.agentId}`,
    key: `event:${memory.id}`,
    value: memory.id,
  };
}

function vectorsOf(s: Storage, memories: readonly MemoryRecord[]): VectorEntry[] {
  return memories.map((m, i) => {
    const vector = new Float32Array(s.vectors.dimensions);
    vector[i % vector.length] = 1;
    return { id: m.id, vector };
  });
}

/** Registers the cases. */
export function memoryWriteContract(cases: ContractCases): void {
  cases.add("MemoryStore.append() stores its claims with the memories", async (s) => {
    const scope = newScope();
    const [a, b, c] = makeMemories(scope, "m", 3);
    await s.memories.append(scope, [a, b], { claims: [claimOf(scope, a), claimOf(scope, b)] });
    const { scope: claimScope, key } = claimOf(scope, a);
    assert.equal(await s.idempotency.get(claimScope, key), a.id);
    // A key holding the same value is left as it is (an earlier attempt claimed the id).
    await s.idempotency.claim(claimScope, claimOf(scope, c).key, { value: c.id });
    await s.memories.append(scope, [c], { claims: [claimOf(scope, c)] });
    assert.equal(await s.memories.count(scope), 3);
  });

  cases.add(
    "MemoryStore.append() throws conflict when a claim's key holds another value and writes nothing",
    async (s) => {
      const scope = newScope();
      const [a, b] = makeMemories(scope, "m", 2);
      const other = { ...claimOf(scope, b), value: "another memory" };
      await s.idempotency.claim(other.scope, other.key, { value: other.value });
      await assertRejectsCode(
        s.memories.append(scope, [a, b], { claims: [claimOf(scope, a), claimOf(scope, b)] }),
        "conflict",
      );
      assert.equal(await s.memories.count(scope), 0);
      assert.equal(await s.idempotency.get(claimOf(scope, a).scope, claimOf(scope, a).key), null);
      assert.equal(await s.idempotency.get(other.scope, other.key), other.value);
    },
  );

  cases.add("MemoryStore.append() under a lost fence stores no claim", async (s) => {
    const scope = newScope();
    const [a] = makeMemories(scope, "m", 1);
    const lockKey = `contract-claims-${suffix()}`;
    const lease = (await s.locks.acquire(lockKey, 10_000))!;
    await s.locks.release(lease);
    await assertRejectsCode(
      s.memories.append(scope, [a], { fence: lease, claims: [claimOf(scope, a)] }),
      "conflict",
    );
    assert.equal(await s.memories.count(scope), 0);
    assert.equal(await s.idempotency.get(claimOf(scope, a).scope, claimOf(scope, a).key), null);
  });

  cases.add(
    "MemoryWriter.append() stores each memory with its vector and its claims",
    async (s) => {
      const scope = newScope();
      const memories = makeMemories(scope, "m", 3);
      const vectors = vectorsOf(s, memories);
      await s.memoryWriter.append(scope, { memories, vectors }, {
        claims: memories.map((m) => claimOf(scope, m)),
      });
      assert.equal(await s.memories.count(scope), 3);
      const cosines = await s.vectors.cosines(scope, memories.map((m) => m.id), vectors[1].vector);
      assert.ok(Math.abs(cosines.get(memories[1].id)! - 1) < 0.01);
      assert.ok(Math.abs(cosines.get(memories[0].id)!) < 0.01);
      const { scope: claimScope, key } = claimOf(scope, memories[2]);
      assert.equal(await s.idempotency.get(claimScope, key), memories[2].id);
      // A vector per memory, or nothing is written.
      const [d] = makeMemories(scope, "d", 1);
      await assertRejectsCode(
        s.memoryWriter.append(scope, { memories: [d], vectors: [] }),
        "invalid_request",
      );
      assert.equal(await s.memories.get(scope, d.id), null);
    },
  );
}

/** Registers the cases of `list`'s `since`. */
export function memorySinceContract(cases: ContractCases): void {
  cases.add(
    "MemoryStore.list() with since returns only memories created at or after it, in pages",
    async (s) => {
      const scope = newScope();
      const memories = makeMemories(scope, "m", 10); // created at T0 + 0…9 minutes
      await s.memories.append(scope, memories);
      const since = memories[4].createdAt;
      const all = async (order: "asc" | "desc") => {
        const ids: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await s.memories.list(scope, { limit: 2, order, since, cursor });
          ids.push(...page.memories.map((m) => m.id));
          cursor = page.next ?? undefined;
        } while (cursor !== undefined);
        return ids;
      };
      const newer = memories.slice(4).map((m) => m.id as string);
      assert.deepEqual(await all("desc"), [...newer].reverse());
      assert.deepEqual(await all("asc"), newer);
      const one = await s.memories.list(scope, { limit: 100, kind: "observation", since });
      assert.deepEqual(one.memories.map((m) => m.id), [...newer].reverse());
      assert.equal(one.next, null);
    },
  );
}
