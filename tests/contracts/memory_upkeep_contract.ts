/**
 * @module Contract cases of memory upkeep (README "Memory upkeep"): `MemoryStore.revise` archives,
 * merges, strengthens and supersedes stored memories without deleting any; memories out of the
 * live set leave the live reads and indexes, ranking leaves them (and superseded ones) out
 * unless asked, and every read that covers all memories still has them.
 */
import assert from "node:assert/strict";
import type { AgentScope } from "../../src/domain/ids.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import type { MemoryStatus } from "../../src/domain/memory/upkeep.ts";
import type { MemoryInclusion } from "../../src/ports/memory_store.ts";
import type { Storage } from "../../src/ports/storage.ts";
import type { Embedder } from "../../src/ports/embedder.ts";
import { gameMinutes } from "../../src/domain/time/game_time.ts";
import { rankMemories } from "../../src/app/memory/retrieval.ts";
import {
  assertRejectsCode,
  at,
  type ContractCases,
  makeMemories,
  makeMemory,
  mid,
  newScope,
  suffix,
} from "./_contract_support.ts";

/** Every page of `list()` of a status (and kind), as ids in page order. */
async function listIds(
  s: Storage,
  scope: AgentScope,
  options: { status?: MemoryStatus; kind?: MemoryRecord["kind"]; order?: "asc" | "desc" },
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await s.memories.list(scope, { ...options, limit: 2, cursor });
    ids.push(...page.memories.map((m) => m.id));
    if (page.next === null) return ids;
    cursor = page.next;
  }
  throw new Error("list() never returned next: null");
}

/** Six observations m-000…m-005 a minute apart; m-001 and m-002 archived and merged, m-003 superseded. */
async function upkeptStream(s: Storage): Promise<{ scope: AgentScope; all: MemoryRecord[] }> {
  const scope = newScope();
  const all = makeMemories(scope, "m", 6).map((m, i) => ({ ...m, importance: i + 1 }));
  await s.memories.append(scope, all);
  const revised = await s.memories.revise(scope, [
    { id: all[1].id, archivedAt: at(100) },
    { id: all[2].id, mergedInto: all[4].id },
    { id: all[3].id, invalidAt: at(90), supersededBy: all[5].id },
    { id: all[4].id, count: 3, firstAt: at(2), lastAt: at(4), evidence: [all[2].id] },
    { id: mid("unknown"), archivedAt: at(100) },
  ]);
  assert.equal(revised, 4, "unknown ids are ignored");
  return { scope, all };
}

/** A unit vector along one axis. */
function axis(s: Storage, i: number): Float32Array {
  const vector = new Float32Array(s.vectors.dimensions);
  vector[i % vector.length] = 1;
  return vector;
}

/** Registers the cases. */
export function memoryUpkeepContract(cases: ContractCases): void {
  cases.add("MemoryStore.revise() sets upkeep fields that every read returns", async (s) => {
    const { scope, all } = await upkeptStream(s);
    const merged = await s.memories.get(scope, all[4].id);
    assert.deepEqual(merged, {
      ...all[4],
      count: 3,
      firstAt: at(2),
      lastAt: at(4),
      evidence: [all[2].id],
    });
    assert.deepEqual(await s.memories.get(scope, all[2].id), { ...all[2], mergedInto: all[4].id });
    assert.deepEqual(await s.memories.get(scope, all[3].id), {
      ...all[3],
      invalidAt: at(90),
      supersededBy: all[5].id,
    });
    const everything = await s.memories.all(scope);
    assert.deepEqual(everything.map((m) => m.id), all.map((m) => m.id));
    assert.equal(everything[1].archivedAt, at(100));
    // null removes a field; other fields stay.
    await s.memories.revise(scope, [{ id: all[4].id, evidence: null, lastAt: at(5) }]);
    const { evidence: _, ...rest } = merged!;
    assert.deepEqual(await s.memories.get(scope, all[4].id), { ...rest, lastAt: at(5) });
  });

  cases.add(
    "MemoryStore.revise() moves archived and merged memories out of the live set without deleting them",
    async (s) => {
      const { scope, all } = await upkeptStream(s);
      const ids = (indexes: number[]) => indexes.map((i) => all[i].id as string);
      assert.deepEqual(await listIds(s, scope, {}), ids([5, 4, 3, 0]));
      assert.deepEqual(await listIds(s, scope, { status: "archived", order: "asc" }), ids([1, 2]));
      assert.deepEqual(
        await listIds(s, scope, { status: "all", order: "asc" }),
        ids([0, 1, 2, 3, 4, 5]),
      );
      assert.deepEqual(await listIds(s, scope, { kind: "observation" }), ids([5, 4, 3, 0]));
      assert.deepEqual(
        await listIds(s, scope, { kind: "observation", status: "archived" }),
        ids([2, 1]),
      );
      const since = await s.memories.list(scope, { limit: 10, kind: "observation", since: at(1) });
      assert.deepEqual(since.memories.map((m) => m.id), ids([5, 4, 3]));
      assert.equal(await s.memories.count(scope), 4);
      assert.equal(await s.memories.count(scope, { status: "archived" }), 2);
      assert.equal(await s.memories.count(scope, { status: "all" }), 6);
      assert.deepEqual(await s.memories.top(scope, "importance", 10), ids([5, 4, 3, 0]));
      assert.deepEqual(await s.memories.top(scope, "created", 10), ids([5, 4, 3, 0]));
      assert.deepEqual(await s.memories.top(scope, "lastAccessed", 10), ids([5, 4, 3, 0]));
    },
  );

  cases.add(
    "MemoryStore.candidates() leaves archived, merged and superseded memories out unless included",
    async (s) => {
      const { scope, all } = await upkeptStream(s);
      const fields = async (include?: MemoryInclusion) => {
        const got = await s.memories.candidates(scope, all.map((m) => m.id), {
          heads: 10,
          include,
        });
        return got.fields.map((f) => f.id as string).sort();
      };
      const ids = (indexes: number[]) => indexes.map((i) => all[i].id as string).sort();
      assert.deepEqual(await fields(), ids([0, 4, 5]));
      assert.deepEqual(await fields({ superseded: true }), ids([0, 3, 4, 5]));
      assert.deepEqual(await fields({ archived: true }), ids([0, 1, 2, 4, 5]));
      assert.deepEqual(await fields({ archived: true, superseded: true }), ids([0, 1, 2, 3, 4, 5]));
      const heads = await s.memories.candidates(scope, [], { heads: 10 });
      assert.deepEqual(heads.important.ids, [all[5].id, all[4].id, all[3].id, all[0].id]);
      assert.equal(heads.important.lowest, 1);
      const archived = (await s.memories.candidates(scope, [all[1].id], {
        heads: 0,
        include: { archived: true },
      })).fields;
      assert.deepEqual(archived, [{
        id: all[1].id,
        createdAt: all[1].createdAt,
        accessedMinutes: gameMinutes(all[1].lastAccessedAt),
        importance: 2,
      }]);
    },
  );

  cases.add(
    "MemoryStore touch() and setImportance() of a memory out of the live set keep it out",
    async (s) => {
      const { scope, all } = await upkeptStream(s);
      await s.memories.touch(scope, [all[1].id], at(500));
      assert.equal(await s.memories.setImportance(scope, all[1].id, 10), true);
      const got = await s.memories.get(scope, all[1].id);
      assert.equal(got?.lastAccessedAt, at(500));
      assert.equal(got?.importance, 10);
      assert.equal(got?.archivedAt, at(100));
      assert.equal((await s.memories.top(scope, "importance", 1))[0], all[5].id);
      // Brought back, it ranks by what it became while out.
      await s.memories.revise(scope, [{ id: all[1].id, archivedAt: null }]);
      assert.equal((await s.memories.top(scope, "importance", 1))[0], all[1].id);
      assert.equal((await s.memories.top(scope, "lastAccessed", 1))[0], all[1].id);
      assert.equal(await s.memories.count(scope), 5);
      assert.deepEqual(await listIds(s, scope, { status: "archived" }), [all[2].id]);
    },
  );

  cases.add("MemoryStore.revise() strengthens a memory and re-sorts its indexes", async (s) => {
    const scope = newScope();
    const all = makeMemories(scope, "m", 3);
    await s.memories.append(scope, [{ ...all[0], importancePending: true }, all[1], all[2]]);
    await s.memories.revise(scope, [
      { id: all[0].id, importance: 9, lastAccessedAt: at(60), count: 2 },
    ]);
    const got = await s.memories.get(scope, all[0].id);
    assert.equal(got?.importance, 9);
    assert.equal(got?.importancePending, undefined);
    assert.equal(got?.lastAccessedAt, at(60));
    assert.equal(got?.count, 2);
    assert.equal((await s.memories.top(scope, "importance", 1))[0], all[0].id);
    assert.equal((await s.memories.top(scope, "lastAccessed", 1))[0], all[0].id);
  });

  cases.add(
    "MemoryStore.revise() writes nothing on an invalid revision or a lost fence",
    async (s) => {
      const scope = newScope();
      const [a, b] = makeMemories(scope, "m", 2);
      await s.memories.append(scope, [a, b]);
      for (
        const bad of [
          [{ id: a.id, archivedAt: at(5) }, { id: b.id, count: 0 }],
          [{ id: a.id, archivedAt: at(5) }, { id: a.id, count: 2 }],
          [{ id: a.id, mergedInto: a.id }],
          [{ id: a.id, importance: 11 }],
        ]
      ) {
        await assertRejectsCode(s.memories.revise(scope, bad), "invalid_request");
      }
      const lease = (await s.locks.acquire(`contract-upkeep-${suffix()}`, 10_000))!;
      await s.memories.revise(scope, [{ id: b.id, count: 2 }], { fence: lease });
      await s.locks.release(lease);
      await assertRejectsCode(
        s.memories.revise(scope, [{ id: a.id, archivedAt: at(5) }], { fence: lease }),
        "conflict",
      );
      assert.deepEqual(await s.memories.get(scope, a.id), a);
      assert.deepEqual(await s.memories.get(scope, b.id), { ...b, count: 2 });
      assert.equal(await s.memories.count(scope), 2);
    },
  );

  cases.add(
    "MemoryStore.append() places records that carry upkeep fields (an import) by them",
    async (s) => {
      const scope = newScope();
      const [a, b, c] = [
        makeMemory(scope, "m-a", { createdAt: at(1), archivedAt: at(9) }),
        makeMemory(scope, "m-b", { createdAt: at(2), mergedInto: mid("m-c") }),
        makeMemory(scope, "m-c", { createdAt: at(3), supersededBy: mid("m-d"), invalidAt: at(8) }),
      ];
      await s.memories.append(scope, [a, b, c]);
      assert.deepEqual(await s.memories.all(scope), [a, b, c]);
      assert.deepEqual(await listIds(s, scope, {}), [c.id]);
      assert.deepEqual(await listIds(s, scope, { status: "archived" }), [b.id, a.id]);
      const got = await s.memories.candidates(scope, [a.id, b.id, c.id], { heads: 10 });
      assert.deepEqual(got.fields, []);
      assert.deepEqual(got.important.ids, [c.id]);
      // Removing one out of the live set clears it from every index.
      assert.equal(await s.memories.remove(scope, [a.id]), 1);
      assert.deepEqual(await listIds(s, scope, { status: "archived" }), [b.id]);
      assert.equal(await s.memories.count(scope, { status: "all" }), 2);
    },
  );

  cases.add(
    "MemoryStore.append() and MemoryWriter.append() resolve to the live count",
    async (s) => {
      const { scope, all } = await upkeptStream(s);
      const [next] = makeMemories(scope, "n", 1, 50);
      assert.equal(await s.memories.append(scope, [next]), 5);
      const [more] = makeMemories(scope, "o", 1, 60);
      const write = { memories: [more], vectors: [{ id: more.id, vector: axis(s, 1) }] };
      assert.equal(await s.memoryWriter.append(scope, write), 6);
      assert.equal(await s.memories.append(scope, []), 6);
      assert.equal(await s.memories.count(scope, { status: "all" }), all.length + 2);
    },
  );

  cases.add(
    "rankMemories() leaves archived, merged and superseded memories out unless included",
    async (s) => {
      const { scope, all } = await upkeptStream(s);
      await s.vectors.upsert(scope, all.map((m) => ({ id: m.id, vector: axis(s, 0) })));
      const ranked = async (include?: MemoryInclusion) =>
        (await rankMemories({ storage: s, embedder: noEmbedder }, scope, {
          query: axis(s, 0),
          at: at(1000),
          weights: { recency: 1, importance: 1, relevance: 1 },
          decay: 0.995,
          k: 10,
          include,
        })).ranked.map((r) => r.memory.id as string).sort();
      const ids = (indexes: number[]) => indexes.map((i) => all[i].id as string).sort();
      assert.deepEqual(await ranked(), ids([0, 4, 5]));
      assert.deepEqual(await ranked({ superseded: true }), ids([0, 3, 4, 5]));
      assert.deepEqual(await ranked({ archived: true }), ids([0, 1, 2, 4, 5]));
      assert.deepEqual(
        await ranked({ archived: true, superseded: true }),
        ids([0, 1, 2, 3, 4, 5]),
      );
    },
  );
}

/** Ranking here never embeds: every memory has its vector. */
const noEmbedder: Embedder = {
  info: { mode: "local", model: "none", dimensions: 0 },
  embed: () => Promise.reject(new Error("Nothing should be embedded")),
};
