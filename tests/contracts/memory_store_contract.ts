/** @module Contract cases every MemoryStore adapter must pass. */
import assert from "node:assert/strict";
import type { AgentScope, MemoryId } from "../../src/domain/ids.ts";
import type { MemoryKind, MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import type { MemoryStore } from "../../src/ports/memory_store.ts";
import { gameMinutes, type GameTime } from "../../src/domain/time/game_time.ts";
import {
  assertRejectsCode,
  at,
  type ContractCases,
  makeMemories,
  makeMemory,
  mid,
  newScope,
  newWorldId,
  T0,
} from "./_contract_support.ts";

/** Reads every page of `list()` and returns the ids in page order. */
async function listAll(
  store: MemoryStore,
  scope: AgentScope,
  options: { kind?: MemoryKind; order?: "asc" | "desc"; limit: number },
): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await store.list(scope, { ...options, cursor });
    assert.ok(page.memories.length <= options.limit, "A page never exceeds its limit");
    ids.push(...page.memories.map((m) => m.id));
    if (page.next === null) return ids;
    cursor = page.next;
  }
  throw new Error("list() never returned next: null");
}

function ids(records: readonly (MemoryRecord | null)[]): (string | null)[] {
  return records.map((r) => r?.id ?? null);
}

/** Registers the MemoryStore cases. */
export function memoryStoreContract(cases: ContractCases): void {
  cases.add("MemoryStore.append() stores records that get() returns unchanged", async (s) => {
    const scope = newScope();
    const full = makeMemory(scope, "m-full", {
      kind: "reflection",
      description: "Klaus is dedicated to his research on gentrification; naïve café ☕",
      createdAt: at(5),
      lastAccessedAt: at(7),
      importance: 8,
      importancePending: true,
      provenance: "told_by:Isabella Rodriguez",
      evidence: [mid("m-a"), mid("m-b")],
      depth: 2,
      location: "the Ville:Hobbs Cafe:cafe:counter",
      subject: "Klaus",
      predicate: "is",
      object: "researching",
      eventId: "evt-1",
    });
    const plain = makeMemory(scope, "m-plain");
    await s.memories.append(scope, [full, plain]);
    assert.deepEqual(await s.memories.get(scope, mid("m-full")), full);
    assert.deepEqual(await s.memories.get(scope, mid("m-plain")), plain);
    assert.equal(await s.memories.count(scope), 2);
  });

  cases.add("MemoryStore.append() of an empty batch writes nothing", async (s) => {
    const scope = newScope();
    await s.memories.append(scope, []);
    assert.equal(await s.memories.count(scope), 0);
    assert.deepEqual(await s.memories.all(scope), []);
  });

  cases.add(
    "MemoryStore.append() throws conflict on an existing id and writes nothing",
    async (s) => {
      const scope = newScope();
      const [a, b, c, d] = makeMemories(scope, "m", 4);
      await s.memories.append(scope, [a, b]);
      const changedA = { ...a, description: "A different description" };
      await assertRejectsCode(s.memories.append(scope, [c, changedA, d]), "conflict");
      assert.equal(await s.memories.count(scope), 2);
      assert.equal(await s.memories.get(scope, c.id), null);
      assert.equal(await s.memories.get(scope, d.id), null);
      assert.deepEqual(await s.memories.get(scope, a.id), a);
      assert.deepEqual(ids(await s.memories.all(scope)), [a.id, b.id]);
      // The store is still usable after the failed call.
      await s.memories.append(scope, [c, d]);
      assert.equal(await s.memories.count(scope), 4);
    },
  );

  cases.add(
    "MemoryStore.append() throws conflict on an id repeated in the batch and writes nothing",
    async (s) => {
      const scope = newScope();
      const [a, b] = makeMemories(scope, "m", 2);
      await assertRejectsCode(s.memories.append(scope, [a, b, { ...a }]), "conflict");
      assert.equal(await s.memories.count(scope), 0);
      assert.equal(await s.memories.get(scope, b.id), null);
    },
  );

  cases.add(
    "MemoryStore.append() throws invalid_request when a record's scope differs and writes nothing",
    async (s) => {
      const scope = newScope();
      const other = newScope(scope.worldId);
      const otherWorld = newScope(newWorldId(), scope.agentId);
      const [a, b] = makeMemories(scope, "m", 2);
      await assertRejectsCode(
        s.memories.append(scope, [a, { ...b, agentId: other.agentId }]),
        "invalid_request",
      );
      await assertRejectsCode(
        s.memories.append(scope, [a, { ...b, worldId: otherWorld.worldId }]),
        "invalid_request",
      );
      assert.equal(await s.memories.count(scope), 0);
      assert.equal(await s.memories.count(other), 0);
      assert.equal(await s.memories.count(otherWorld), 0);
    },
  );

  cases.add(
    "MemoryStore.append() writes 500 memories of 2,000 characters all or nothing",
    async (s) => {
      const scope = newScope();
      const long = (i: number) => `${i} `.padEnd(2000, "lorem ipsum dolor sit amet ");
      const batch = makeMemories(scope, "big", 500).map((m, i) => ({ ...m, description: long(i) }));
      await s.memories.append(scope, batch);
      assert.equal(await s.memories.count(scope), 500);
      const stored = await s.memories.all(scope);
      assert.deepEqual(ids(stored), batch.map((m) => m.id));
      assert.equal(stored[499].description, long(499));
      assert.equal(stored[0].description.length, 2000);

      // A second batch of 500 whose last record collides writes none of its records.
      const second = makeMemories(scope, "more", 500, 1000).map((m, i) => ({
        ...m,
        description: long(i),
      }));
      second[499] = { ...batch[0] };
      await assertRejectsCode(s.memories.append(scope, second), "conflict");
      assert.equal(await s.memories.count(scope), 500);
      assert.equal(await s.memories.get(scope, second[0].id), null);
      assert.equal(await s.memories.get(scope, second[498].id), null);
      const page = await s.memories.list(scope, { limit: 1 });
      assert.equal(page.memories[0].id, batch[499].id);
    },
  );

  cases.add("MemoryStore.get() returns null for an unknown id", async (s) => {
    const scope = newScope();
    assert.equal(await s.memories.get(scope, mid("nope")), null);
    await s.memories.append(scope, makeMemories(scope, "m", 1));
    assert.equal(await s.memories.get(scope, mid("nope")), null);
  });

  cases.add(
    "MemoryStore.getMany() returns records in the requested order with null for missing ids",
    async (s) => {
      const scope = newScope();
      const [a, b, c] = makeMemories(scope, "m", 3);
      await s.memories.append(scope, [a, b, c]);
      const got = await s.memories.getMany(scope, [c.id, mid("missing"), a.id, b.id]);
      assert.deepEqual(got, [c, null, a, b]);
      assert.deepEqual(await s.memories.getMany(scope, []), []);
    },
  );

  cases.add("MemoryStore.all() returns every memory in creation order, ties by id", async (s) => {
    const scope = newScope();
    // Appended out of time order (a game engine may report an earlier `at`), with ties.
    const late = makeMemory(scope, "m-late", { createdAt: at(30) });
    const tieB = makeMemory(scope, "m-tie-b", { createdAt: at(20) });
    const tieA = makeMemory(scope, "m-tie-a", { createdAt: at(20) });
    const early = makeMemory(scope, "m-early", { createdAt: at(10) });
    await s.memories.append(scope, [late, tieB]);
    await s.memories.append(scope, [tieA, early]);
    assert.deepEqual(ids(await s.memories.all(scope)), [
      "m-early",
      "m-tie-a",
      "m-tie-b",
      "m-late",
    ]);
  });

  cases.add("MemoryStore.count() counts one agent's memories", async (s) => {
    const scope = newScope();
    assert.equal(await s.memories.count(scope), 0);
    await s.memories.append(scope, makeMemories(scope, "m", 3));
    await s.memories.append(scope, makeMemories(scope, "n", 2, 10));
    assert.equal(await s.memories.count(scope), 5);
  });

  cases.add("MemoryStore.list() pages newest first by default", async (s) => {
    const scope = newScope();
    const all = makeMemories(scope, "m", 7);
    await s.memories.append(scope, all);
    const first = await s.memories.list(scope, { limit: 3 });
    assert.deepEqual(ids(first.memories), ["m-006", "m-005", "m-004"]);
    assert.deepEqual(first.memories[0], all[6]);
    assert.notEqual(first.next, null);
    const listed = await listAll(s.memories, scope, { limit: 3 });
    assert.deepEqual(listed, all.map((m) => m.id).reverse());
  });

  cases.add('MemoryStore.list() pages oldest first with order "asc"', async (s) => {
    const scope = newScope();
    const all = makeMemories(scope, "m", 7);
    await s.memories.append(scope, all);
    const first = await s.memories.list(scope, { limit: 2, order: "asc" });
    assert.deepEqual(ids(first.memories), ["m-000", "m-001"]);
    const listed = await listAll(s.memories, scope, { limit: 2, order: "asc" });
    assert.deepEqual(listed, all.map((m) => m.id));
    const single = await listAll(s.memories, scope, { limit: 1000, order: "asc" });
    assert.deepEqual(single, all.map((m) => m.id));
  });

  cases.add("MemoryStore.list() breaks creation-time ties by id in both orders", async (s) => {
    const scope = newScope();
    const same = ["m-c", "m-a", "m-d", "m-b"].map((id) => makeMemory(scope, id));
    await s.memories.append(scope, same);
    assert.deepEqual(await listAll(s.memories, scope, { limit: 1, order: "asc" }), [
      "m-a",
      "m-b",
      "m-c",
      "m-d",
    ]);
    assert.deepEqual(await listAll(s.memories, scope, { limit: 3, order: "desc" }), [
      "m-d",
      "m-c",
      "m-b",
      "m-a",
    ]);
  });

  cases.add("MemoryStore.list() filters by kind in both orders", async (s) => {
    const scope = newScope();
    const kinds: MemoryKind[] = ["observation", "plan", "reflection", "chat", "seed"];
    const all = makeMemories(scope, "m", 20).map((m, i) => ({ ...m, kind: kinds[i % 5] }));
    await s.memories.append(scope, all);
    for (const kind of kinds) {
      const expected = all.filter((m) => m.kind === kind).map((m) => m.id);
      assert.deepEqual(
        await listAll(s.memories, scope, { kind, limit: 3, order: "asc" }),
        expected,
      );
      assert.deepEqual(
        await listAll(s.memories, scope, { kind, limit: 3, order: "desc" }),
        [...expected].reverse(),
      );
    }
    const page = await s.memories.list(scope, { kind: "plan", limit: 10 });
    assert.ok(page.memories.every((m) => m.kind === "plan"));
    assert.equal(page.memories.length, 4);
    assert.equal(page.next, null);
  });

  cases.add("MemoryStore.list() cursors are stable under later appends", async (s) => {
    const scope = newScope();
    const original = makeMemories(scope, "m", 9, 100);
    await s.memories.append(scope, original);

    // Newest first: memories appended between pages are newer than the cursor and never shift
    // the following pages.
    const desc: string[] = [];
    let page = await s.memories.list(scope, { limit: 4 });
    desc.push(...ids(page.memories) as string[]);
    await s.memories.append(scope, makeMemories(scope, "new", 5, 200));
    while (page.next !== null) {
      page = await s.memories.list(scope, { limit: 4, cursor: page.next });
      desc.push(...ids(page.memories) as string[]);
      await s.memories.append(scope, makeMemories(scope, `x${desc.length}`, 2, 300 + desc.length));
    }
    assert.deepEqual(desc, original.map((m) => m.id).reverse());

    // Oldest first: later appends come after every original memory, each exactly once.
    const scope2 = newScope();
    await s.memories.append(scope2, original.map((m) => ({ ...m, ...scope2 })));
    const asc: string[] = [];
    page = await s.memories.list(scope2, { limit: 4, order: "asc" });
    asc.push(...ids(page.memories) as string[]);
    await s.memories.append(scope2, makeMemories(scope2, "new", 3, 200));
    while (page.next !== null) {
      page = await s.memories.list(scope2, { limit: 4, order: "asc", cursor: page.next });
      asc.push(...ids(page.memories) as string[]);
    }
    assert.deepEqual(asc, [...original.map((m) => m.id), "new-000", "new-001", "new-002"]);
  });

  cases.add("MemoryStore.list() returns next null on the last page", async (s) => {
    const scope = newScope();
    const empty = await s.memories.list(scope, { limit: 5 });
    assert.deepEqual(empty, { memories: [], next: null });
    await s.memories.append(scope, makeMemories(scope, "m", 4));
    const first = await s.memories.list(scope, { limit: 2, order: "asc" });
    assert.notEqual(first.next, null);
    const second = await s.memories.list(scope, {
      limit: 2,
      order: "asc",
      cursor: first.next ?? undefined,
    });
    assert.deepEqual(ids(second.memories), ["m-002", "m-003"]);
    assert.equal(second.next, null, "A full last page has no next");
    const exact = await s.memories.list(scope, { limit: 4 });
    assert.equal(exact.memories.length, 4);
    assert.equal(exact.next, null);
  });

  cases.add(
    "MemoryStore.touch() sets lastAccessedAt and moves the lastAccessed index",
    async (s) => {
      const scope = newScope();
      const all = makeMemories(scope, "m", 5);
      await s.memories.append(scope, all);
      assert.deepEqual(await s.memories.top(scope, "lastAccessed", 2), ["m-004", "m-003"]);
      await s.memories.touch(scope, [mid("m-001"), mid("m-000")], at(60));
      const touched = await s.memories.get(scope, mid("m-001"));
      assert.equal(touched?.lastAccessedAt, at(60));
      assert.equal(touched?.createdAt, at(1), "touch() leaves creation time alone");
      assert.equal(touched?.description, all[1].description);
      assert.equal((await s.memories.get(scope, mid("m-002")))?.lastAccessedAt, at(2));
      const top = await s.memories.top(scope, "lastAccessed", 5);
      assert.deepEqual(top.slice(2), ["m-004", "m-003", "m-002"]);
      assert.deepEqual([...top.slice(0, 2)].sort(), ["m-000", "m-001"]);
      await s.memories.touch(scope, [mid("m-002")], at(90));
      assert.deepEqual(await s.memories.top(scope, "lastAccessed", 1), ["m-002"]);
      // Creation order and paging are unaffected.
      assert.deepEqual(ids(await s.memories.all(scope)), all.map((m) => m.id));
    },
  );

  cases.add(
    "MemoryStore.candidates() reads creation, access and importance per id, filtered by kind",
    async (s) => {
      const scope = newScope();
      await s.memories.append(scope, [
        makeMemory(scope, "obs", { createdAt: "2023-02-13T07:00:07" as GameTime, importance: 2 }),
        makeMemory(scope, "plan", { kind: "plan", createdAt: at(5), importance: 7.5 }),
      ]);
      await s.memories.touch(scope, [mid("obs")], "2023-02-13T09:30:45" as GameTime);
      await s.memories.setImportance(scope, mid("plan"), 9);
      const ids = [mid("plan"), mid("ghost"), mid("obs"), mid("plan")];
      const fields = (await s.memories.candidates(scope, ids, { heads: 0 })).fields;
      assert.deepEqual(fields, [
        { id: "plan", createdAt: at(5), accessedMinutes: gameMinutes(T0), importance: 9 },
        {
          id: "obs",
          createdAt: "2023-02-13T07:00:07",
          accessedMinutes: gameMinutes("2023-02-13T09:30:45"),
          importance: 2,
        },
      ]);
      const plans = await s.memories.candidates(scope, ids, { heads: 0, kinds: ["plan", "chat"] });
      assert.deepEqual(plans.fields.map((r) => r.id), ["plan"]);
      const none = { ids: [], scores: [], lowest: null };
      assert.deepEqual(await s.memories.candidates(newScope(), ids, { heads: 5 }), {
        recent: none,
        important: none,
        fields: [],
      });
    },
  );

  cases.add("MemoryStore.touch() is idempotent and ignores unknown ids", async (s) => {
    const scope = newScope();
    const all = makeMemories(scope, "m", 3);
    await s.memories.append(scope, all);
    await s.memories.touch(scope, [mid("m-000"), mid("ghost")], at(50));
    await s.memories.touch(scope, [mid("m-000"), mid("ghost")], at(50));
    await s.memories.touch(scope, [], at(70));
    assert.equal(await s.memories.count(scope), 3);
    assert.equal(await s.memories.get(scope, mid("ghost")), null);
    assert.deepEqual(await s.memories.get(scope, mid("m-000")), {
      ...all[0],
      lastAccessedAt: at(50),
    });
    assert.deepEqual(await s.memories.top(scope, "lastAccessed", 3), ["m-000", "m-002", "m-001"]);
  });

  cases.add(
    "MemoryStore.setImportance() sets importance, clears importancePending and moves the importance index",
    async (s) => {
      const scope = newScope();
      const all = makeMemories(scope, "m", 4).map((m, i) => ({
        ...m,
        importance: [2, 5, 1, 7][i],
        importancePending: i === 2 ? true : undefined,
      }));
      await s.memories.append(scope, all.map((m) => JSON.parse(JSON.stringify(m))));
      assert.deepEqual(await s.memories.top(scope, "importance", 4), [
        "m-003",
        "m-001",
        "m-000",
        "m-002",
      ]);
      assert.equal(await s.memories.setImportance(scope, mid("m-002"), 9), true);
      const updated = await s.memories.get(scope, mid("m-002"));
      assert.equal(updated?.importance, 9);
      assert.ok(!updated?.importancePending, "importancePending is cleared");
      assert.equal(updated?.description, all[2].description);
      assert.equal(updated?.lastAccessedAt, all[2].lastAccessedAt);
      assert.deepEqual(await s.memories.top(scope, "importance", 2), ["m-002", "m-003"]);
      assert.equal(await s.memories.setImportance(scope, mid("m-003"), 1), true);
      assert.deepEqual(await s.memories.top(scope, "importance", 4), [
        "m-002",
        "m-001",
        "m-000",
        "m-003",
      ]);
      // Touch after setImportance keeps the new importance, and the other way round.
      await s.memories.touch(scope, [mid("m-002")], at(99));
      const both = await s.memories.get(scope, mid("m-002"));
      assert.equal(both?.importance, 9);
      assert.equal(both?.lastAccessedAt, at(99));
    },
  );

  cases.add("MemoryStore.setImportance() returns false for an unknown id", async (s) => {
    const scope = newScope();
    assert.equal(await s.memories.setImportance(scope, mid("ghost"), 5), false);
    await s.memories.append(scope, makeMemories(scope, "m", 1));
    assert.equal(await s.memories.setImportance(scope, mid("ghost"), 5), false);
    assert.equal(await s.memories.count(scope), 1);
    assert.equal(await s.memories.get(scope, mid("ghost")), null);
  });

  cases.add(
    "MemoryStore.top() ranks by lastAccessed, importance and created, highest first",
    async (s) => {
      const scope = newScope();
      // Three different orders over the same five memories (no ties in any index).
      const rows: [string, number, number, number][] = [
        // id, created minute, last-accessed minute, importance
        ["m-a", 1, 40, 2],
        ["m-b", 2, 10, 9],
        ["m-c", 3, 50, 5],
        ["m-d", 4, 20, 1],
        ["m-e", 5, 30, 7],
      ];
      await s.memories.append(
        scope,
        rows.map(([id, c, l, imp]) =>
          makeMemory(scope, id, { createdAt: at(c), lastAccessedAt: at(l), importance: imp })
        ),
      );
      assert.deepEqual(await s.memories.top(scope, "created", 3), ["m-e", "m-d", "m-c"]);
      assert.deepEqual(await s.memories.top(scope, "lastAccessed", 3), ["m-c", "m-a", "m-e"]);
      assert.deepEqual(await s.memories.top(scope, "importance", 3), ["m-b", "m-e", "m-c"]);
      assert.deepEqual(await s.memories.top(scope, "importance", 50), [
        "m-b",
        "m-e",
        "m-c",
        "m-a",
        "m-d",
      ]);
      assert.deepEqual(await s.memories.top(scope, "created", 0), []);
    },
  );

  cases.add(
    "MemoryStore.candidates() gives both heads with their scores and lowest scores, and their fields",
    async (s) => {
      const scope = newScope();
      const rows: [string, number, number][] = [["m-a", 40, 2], ["m-b", 10, 9], ["m-c", 50, 5]];
      await s.memories.append(
        scope,
        rows.map(([id, l, imp]) =>
          makeMemory(scope, id, { createdAt: at(l), lastAccessedAt: at(l), importance: imp })
        ),
      );
      const found = await s.memories.candidates(scope, [mid("m-a"), mid("m-x")], { heads: 2 });
      assert.deepEqual(found.important, { ids: ["m-b", "m-c"], scores: [9, 5], lowest: 2 });
      assert.deepEqual(found.recent, {
        ids: ["m-c", "m-a"],
        scores: [gameMinutes(at(50)), gameMinutes(at(40))],
        lowest: gameMinutes(at(10)),
      });
      // The ids asked for, then the heads', each once.
      assert.deepEqual(found.fields.map((r) => r.id), ["m-a", "m-c", "m-b"]);
      assert.deepEqual(found.fields[2], {
        id: "m-b",
        createdAt: at(10),
        accessedMinutes: gameMinutes(at(10)),
        importance: 9,
      });
      // A head deeper than the index holds all of it, its last entry the lowest.
      const whole = await s.memories.candidates(scope, [], { heads: 5 });
      assert.deepEqual(whole.important, {
        ids: ["m-b", "m-c", "m-a"],
        scores: [9, 5, 2],
        lowest: 2,
      });
      assert.equal(whole.recent.lowest, gameMinutes(at(10)));
      const bare = await s.memories.candidates(scope, [], { heads: 0 });
      assert.deepEqual(bare.recent, { ids: [], scores: [], lowest: gameMinutes(at(10)) });
      assert.deepEqual(bare.fields, []);
    },
  );

  cases.add("MemoryStore.top() returns no ids for an agent without memories", async (s) => {
    const scope = newScope();
    for (const index of ["lastAccessed", "importance", "created"] as const) {
      assert.deepEqual(await s.memories.top(scope, index, 10), []);
    }
  });

  cases.add("MemoryStore never shows one scope's memories through another", async (s) => {
    const home = newScope();
    const sibling = newScope(home.worldId); // same world, other agent
    const twin = newScope(newWorldId(), home.agentId); // same agent id, other world
    const [a, b] = makeMemories(home, "m", 2);
    await s.memories.append(home, [a, b]);
    for (const other of [sibling, twin]) {
      const otherIds: MemoryId[] = [a.id, b.id];
      assert.equal(await s.memories.get(other, a.id), null);
      assert.deepEqual(await s.memories.getMany(other, otherIds), [null, null]);
      assert.deepEqual(await s.memories.all(other), []);
      assert.equal(await s.memories.count(other), 0);
      assert.deepEqual(await s.memories.list(other, { limit: 10 }), { memories: [], next: null });
      assert.deepEqual(await s.memories.top(other, "created", 10), []);
      await s.memories.touch(other, [a.id], at(500));
      assert.equal(await s.memories.setImportance(other, a.id, 10), false);
    }
    assert.deepEqual(await s.memories.get(home, a.id), a, "Writes through other scopes missed");

    // The same ids may exist in each scope independently.
    const siblingA = makeMemory(sibling, "m-000", { description: "sibling's own" });
    const twinA = makeMemory(twin, "m-000", { description: "twin's own" });
    await s.memories.append(sibling, [siblingA]);
    await s.memories.append(twin, [twinA]);
    await s.memories.touch(sibling, [a.id], at(600));
    assert.equal(await s.memories.setImportance(twin, a.id, 10), true);
    assert.deepEqual(await s.memories.get(home, a.id), a);
    assert.deepEqual(await s.memories.get(sibling, a.id), { ...siblingA, lastAccessedAt: at(600) });
    assert.equal((await s.memories.get(twin, a.id))?.importance, 10);
    assert.equal(await s.memories.count(home), 2);
    assert.deepEqual(ids(await s.memories.all(sibling)), ["m-000"]);
    assert.deepEqual(await s.memories.top(home, "created", 1), ["m-001"]);
  });

  cases.add("MemoryStore.clear() removes one agent's whole stream and nothing else", async (s) => {
    const scope = newScope();
    const other = newScope(scope.worldId);
    await s.memories.append(scope, makeMemories(scope, "c", 1_200));
    await s.memories.append(other, makeMemories(other, "o", 3));
    await s.memories.touch(scope, [mid("c-001")], at(5_000));
    await s.memories.clear(scope);
    assert.equal(await s.memories.count(scope), 0);
    assert.deepEqual(await s.memories.all(scope), []);
    assert.equal(await s.memories.get(scope, mid("c-001")), null);
    assert.deepEqual(await s.memories.top(scope, "lastAccessed", 5), []);
    assert.equal((await s.memories.list(scope, { limit: 10 })).memories.length, 0);
    assert.equal(await s.memories.count(other), 3, "Another agent keeps its memories");
    await s.memories.clear(scope); // idempotent
    await s.memories.append(scope, [makeMemory(scope, "c-001")]);
    assert.equal(await s.memories.count(scope), 1, "The ids can be used again");
  });
}
