/** @module Contract cases every DocumentStore adapter must pass. */
import assert from "node:assert/strict";
import type { DocumentKey } from "../../src/ports/document_store.ts";
import { assertRejectsCode, type ContractCases, suffix } from "./_contract_support.ts";

interface Clock {
  now: string;
  ticks: number;
  tags?: string[];
}

function docKey(id = "doc", scope = `s-${suffix()}`, collection = "worlds"): DocumentKey {
  return { collection, scope, id };
}

/** Registers the DocumentStore cases. */
export function documentStoreContract(cases: ContractCases): void {
  cases.add("DocumentStore.create() stores version 1 and get() returns it", async (s) => {
    const key = docKey("smallville");
    const value: Clock = { now: "2023-02-13T07:00:00", ticks: 0, tags: ["a", "ü"] };
    const created = await s.documents.create<Clock>(key, value);
    assert.deepEqual(created, { id: "smallville", value, version: 1 });
    assert.deepEqual(await s.documents.get<Clock>(key), { id: "smallville", value, version: 1 });
  });

  cases.add(
    "DocumentStore.create() throws conflict when the document exists and keeps it",
    async (s) => {
      const key = docKey();
      await s.documents.create(key, { now: "first", ticks: 0 });
      await assertRejectsCode(s.documents.create(key, { now: "second", ticks: 1 }), "conflict");
      assert.deepEqual(await s.documents.get(key), {
        id: key.id,
        value: { now: "first", ticks: 0 },
        version: 1,
      });
    },
  );

  cases.add("DocumentStore.get() returns null for a missing document", async (s) => {
    assert.equal(await s.documents.get(docKey("missing")), null);
  });

  cases.add(
    "DocumentStore.replace() writes the next version when the version matches",
    async (s) => {
      const key = docKey();
      await s.documents.create<Clock>(key, { now: "t0", ticks: 0 });
      const v2 = await s.documents.replace<Clock>(key, { now: "t1", ticks: 1 }, {
        expectedVersion: 1,
      });
      assert.deepEqual(v2, { id: key.id, value: { now: "t1", ticks: 1 }, version: 2 });
      const v3 = await s.documents.replace<Clock>(key, { now: "t2", ticks: 2 }, {
        expectedVersion: 2,
      });
      assert.equal(v3?.version, 3);
      assert.deepEqual(await s.documents.get<Clock>(key), {
        id: key.id,
        value: { now: "t2", ticks: 2 },
        version: 3,
      });
    },
  );

  cases.add(
    "DocumentStore.replace() returns null on a stale version and writes nothing",
    async (s) => {
      const key = docKey();
      await s.documents.create<Clock>(key, { now: "t0", ticks: 0 });
      await s.documents.replace<Clock>(key, { now: "t1", ticks: 1 }, { expectedVersion: 1 });
      assert.equal(
        await s.documents.replace<Clock>(key, { now: "stale", ticks: 9 }, { expectedVersion: 1 }),
        null,
      );
      assert.equal(
        await s.documents.replace<Clock>(key, { now: "future", ticks: 9 }, { expectedVersion: 3 }),
        null,
      );
      assert.deepEqual(await s.documents.get<Clock>(key), {
        id: key.id,
        value: { now: "t1", ticks: 1 },
        version: 2,
      });
    },
  );

  cases.add(
    "DocumentStore.replace() returns null for a missing document and creates nothing",
    async (s) => {
      const key = docKey();
      assert.equal(
        await s.documents.replace(key, { now: "t0", ticks: 0 }, { expectedVersion: 1 }),
        null,
      );
      assert.equal(
        await s.documents.replace(key, { now: "t0", ticks: 0 }, { expectedVersion: 0 }),
        null,
      );
      assert.equal(await s.documents.get(key), null);
    },
  );

  cases.add("DocumentStore.replace() lets exactly one of 10 concurrent writers win", async (s) => {
    const key = docKey("clock");
    await s.documents.create<Clock>(key, { now: "t0", ticks: 0 });
    const results = await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) =>
          s.documents.replace<Clock>(key, { now: `w${i}`, ticks: i }, { expectedVersion: 1 }),
      ),
    );
    const winners = results.filter((r) => r !== null);
    assert.equal(winners.length, 1, "Exactly one compare-and-set wins");
    assert.equal(winners[0]!.version, 2);
    assert.deepEqual(await s.documents.get<Clock>(key), winners[0]);
  });

  cases.add("DocumentStore.list() returns a scope's documents ordered by id", async (s) => {
    const scope = `s-${suffix()}`;
    for (const id of ["c9", "a", "c10", "b"]) {
      await s.documents.create(docKey(id, scope, "agents"), { name: id });
    }
    await s.documents.replace(docKey("b", scope, "agents"), { name: "b2" }, { expectedVersion: 1 });
    const listed = await s.documents.list<{ name: string }>("agents", scope);
    assert.deepEqual(listed, [
      { id: "a", value: { name: "a" }, version: 1 },
      { id: "b", value: { name: "b2" }, version: 2 },
      { id: "c10", value: { name: "c10" }, version: 1 },
      { id: "c9", value: { name: "c9" }, version: 1 },
    ]);
    assert.deepEqual(await s.documents.list("agents", `s-${suffix()}`), []);
  });

  cases.add(
    "DocumentStore.delete() removes a document and reports whether it existed",
    async (s) => {
      const key = docKey();
      await s.documents.create(key, { now: "t0", ticks: 0 });
      assert.equal(await s.documents.delete(key), true);
      assert.equal(await s.documents.get(key), null);
      assert.deepEqual(await s.documents.list(key.collection, key.scope), []);
      assert.equal(await s.documents.delete(key), false);
      assert.equal(
        await s.documents.replace(key, { now: "t1", ticks: 1 }, { expectedVersion: 1 }),
        null,
      );
      const again = await s.documents.create(key, { now: "t2", ticks: 2 });
      assert.deepEqual(again.value, { now: "t2", ticks: 2 });
    },
  );

  cases.add("DocumentStore keeps collections and scopes apart", async (s) => {
    const scopeA = `s-${suffix()}`;
    const scopeB = `s-${suffix()}`;
    const global = `g-${suffix()}`; // a collection used with the global scope ""
    await s.documents.create(docKey("x", scopeA, "worlds"), { v: "worlds/A" });
    await s.documents.create(docKey("x", scopeB, "worlds"), { v: "worlds/B" });
    await s.documents.create(docKey("x", scopeA, "agents"), { v: "agents/A" });
    await s.documents.create(docKey("x", "", global), { v: "global" });
    assert.deepEqual((await s.documents.get(docKey("x", scopeA, "worlds")))?.value, {
      v: "worlds/A",
    });
    assert.deepEqual((await s.documents.get(docKey("x", scopeB, "worlds")))?.value, {
      v: "worlds/B",
    });
    assert.deepEqual((await s.documents.get(docKey("x", scopeA, "agents")))?.value, {
      v: "agents/A",
    });
    assert.deepEqual((await s.documents.get(docKey("x", "", global)))?.value, { v: "global" });
    assert.equal(await s.documents.get(docKey("x", scopeB, "agents")), null);
    assert.equal(await s.documents.get(docKey("x", "", "worlds")), null);

    assert.notEqual(
      await s.documents.replace(docKey("x", scopeA, "worlds"), { v: "A2" }, { expectedVersion: 1 }),
      null,
    );
    assert.equal((await s.documents.get(docKey("x", scopeB, "worlds")))?.version, 1);
    assert.equal(await s.documents.delete(docKey("x", scopeB, "agents")), false);
    assert.equal(await s.documents.delete(docKey("x", scopeA, "agents")), true);
    assert.notEqual(await s.documents.get(docKey("x", scopeA, "worlds")), null);
    assert.deepEqual((await s.documents.list("worlds", scopeB)).map((d) => d.value), [{
      v: "worlds/B",
    }]);
    assert.deepEqual((await s.documents.list(global, "")).map((d) => d.id), ["x"]);
  });
}
