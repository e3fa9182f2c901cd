/** @module Contract cases every UnitOfWorkStore adapter must pass. */
import assert from "node:assert/strict";
import { ConflictError, LeaseLostError } from "../../src/domain/errors.ts";
import type { DocumentKey } from "../../src/ports/document_store.ts";
import type { Storage } from "../../src/ports/storage.ts";
import { type ContractCases, suffix } from "./_contract_support.ts";

const LONG_TTL = 30_000;

function doc(id: string, scope: string): DocumentKey {
  return { collection: "uow", scope, id };
}

/** Two documents (one at version 2, one absent) and a held lease. */
async function fixture(s: Storage) {
  const scope = `s-${suffix()}`;
  const a = doc("a", scope), b = doc("b", scope);
  await s.documents.create(a, { n: 1 });
  await s.documents.replace(a, { n: 2 }, { expectedVersion: 1 });
  const lease = await s.locks.acquire(`uow:${suffix()}`, LONG_TTL);
  assert.ok(lease);
  return { a, b, lease };
}

/** Registers the UnitOfWorkStore cases. */
export function unitOfWorkContract(cases: ContractCases): void {
  cases.add("UnitOfWorkStore.begin() takes free leases and reads documents in order", async (s) => {
    const { a, b, lease } = await fixture(s);
    const free = `uow:${suffix()}`;
    const begun = await s.units.begin({
      leases: [{ key: free, ttlMs: LONG_TTL }, { key: lease.key, ttlMs: LONG_TTL }],
      documents: [b, a],
    });
    assert.equal(begun.leases[0]?.key, free);
    assert.equal(begun.leases[1], null, "A held lease is not granted");
    assert.equal(await s.locks.acquire(free, LONG_TTL), null, "The lease taken is held");
    assert.deepEqual(begun.documents, [null, { id: "a", value: { n: 2 }, version: 2 }]);
    assert.deepEqual(await s.units.begin({ leases: [], documents: [] }), {
      leases: [],
      documents: [],
      claimed: null,
    });
  });

  cases.add(
    "UnitOfWorkStore claims an idempotency key in the commit, first write wins",
    async (s) => {
      const { a, lease } = await fixture(s);
      const claim = { scope: `uow:${suffix()}`, key: "t1/agent" };
      const begun = await s.units.begin({ leases: [], documents: [a], claim });
      assert.equal(begun.claimed, null, "Nothing claimed yet");
      await s.units.commit({
        documents: [{ key: a, value: { n: 3 }, expectedVersion: 2 }],
        fences: [lease],
        release: [],
        claim: { ...claim, value: { result: 1 } },
      });
      assert.deepEqual(await s.idempotency.get(claim.scope, claim.key), { result: 1 });
      const again = await s.units.begin({ leases: [], documents: [], claim });
      assert.deepEqual(again.claimed, { result: 1 }, "begin reads the claimed value");
      // A second claim of the key writes nothing: neither its documents nor its value.
      const error = await s.units.commit({
        documents: [{ key: a, value: { n: 4 }, expectedVersion: 3 }],
        fences: [lease],
        release: [lease],
        claim: { ...claim, value: { result: 2 } },
      }).catch((e) => e);
      assert.ok(error instanceof ConflictError, String(error));
      assert.deepEqual(await s.idempotency.get(claim.scope, claim.key), { result: 1 });
      assert.deepEqual(await s.documents.get(a), { id: "a", value: { n: 3 }, version: 3 });
      assert.equal(await s.locks.release(lease), true, "A failed commit releases nothing");
    },
  );

  cases.add(
    "UnitOfWorkStore.commit() counts each claim once with its counter and answers the new count",
    async (s) => {
      const { a, lease } = await fixture(s);
      const scope = `uow:${suffix()}`;
      const claimOf = (key: string, value: unknown) => ({ scope, key, value, counter: "t1/#" });
      const first = await s.units.commit({
        documents: [{ key: a, value: { n: 3 }, expectedVersion: 2 }],
        fences: [lease],
        release: [],
        claim: claimOf("t1/x", 1),
      });
      assert.deepEqual(first, { count: 1 });
      // A claim with no documents nor leases still counts (a failure reported by itself).
      assert.deepEqual(
        await s.units.commit({ documents: [], fences: [], release: [], claim: claimOf("t1/y", 2) }),
        { count: 2 },
      );
      // A claim of a key claimed already counts nothing.
      await assert.rejects(
        s.units.commit({ documents: [], fences: [], release: [], claim: claimOf("t1/x", 3) }),
        ConflictError,
      );
      // Nor does a commit that writes nothing because a document changed.
      await assert.rejects(
        s.units.commit({
          documents: [{ key: a, value: { n: 9 }, expectedVersion: 2 }],
          fences: [],
          release: [],
          claim: claimOf("t1/z", 4),
        }),
        ConflictError,
      );
      assert.equal(await s.idempotency.get(scope, "t1/#"), 2, "The count reads as a number");
      // Concurrent claims of distinct keys all count; each value is read by one commit at most
      // (a commit overtaken before it read the count answers null), the total by one.
      const counts = (await Promise.all(
        ["p", "q", "r", "s", "t", "u", "v", "w"].map((k) =>
          s.units.commit({ documents: [], fences: [], release: [], claim: claimOf(`t1/${k}`, k) })
        ),
      )).map((c) => c.count).filter((n) => n !== null);
      assert.equal(new Set(counts).size, counts.length, String(counts));
      assert.ok(counts.every((n) => n >= 3 && n <= 10), String(counts));
      assert.ok(counts.includes(10), String(counts));
      assert.equal(await s.idempotency.get(scope, "t1/#"), 10);
      assert.deepEqual(
        await s.units.commit({ documents: [], fences: [], release: [lease] }),
        { count: null },
        "No counter, no count",
      );
    },
  );

  cases.add("UnitOfWorkStore.commit() claims with a time to live, first write wins", async (s) => {
    const { a, lease } = await fixture(s);
    const claim = { scope: `uow:${suffix()}`, key: "t1/agent" };
    await s.units.commit({
      documents: [{ key: a, value: { n: 3 }, expectedVersion: 2 }],
      fences: [lease],
      release: [lease],
      claim: { ...claim, value: { result: 1 }, ttlMs: 60_000 },
    });
    assert.deepEqual((await s.units.begin({ leases: [], documents: [], claim })).claimed, {
      result: 1,
    });
    await assert.rejects(
      s.units.commit({ documents: [], fences: [], release: [], claim: { ...claim, value: 2 } }),
      ConflictError,
    );
    assert.deepEqual(await s.idempotency.claim(claim.scope, claim.key, { value: 3 }), {
      created: false,
      value: { result: 1 },
    });
  });

  cases.add("UnitOfWorkStore.commit() claims nothing when a document changed", async (s) => {
    const { a, lease } = await fixture(s);
    const claim = { scope: `uow:${suffix()}`, key: "t1/agent" };
    await assert.rejects(
      s.units.commit({
        documents: [{ key: a, value: "x", expectedVersion: 1 }],
        fences: [lease],
        release: [lease],
        claim: { ...claim, value: 1 },
      }),
      ConflictError,
    );
    assert.equal(await s.idempotency.get(claim.scope, claim.key), null);
  });

  cases.add("UnitOfWorkStore.commit() writes every document and releases the leases", async (s) => {
    const { a, b, lease } = await fixture(s);
    await s.units.commit({
      documents: [
        { key: a, value: { n: 3 }, expectedVersion: 2 },
        { key: b, value: ["new"], expectedVersion: 0 },
      ],
      fences: [lease],
      release: [lease],
    });
    assert.deepEqual(await s.documents.get(a), { id: "a", value: { n: 3 }, version: 3 });
    assert.deepEqual(await s.documents.get(b), { id: "b", value: ["new"], version: 1 });
    assert.equal(await s.locks.release(lease), false, "Released by the commit");
    assert.ok(await s.locks.acquire(lease.key, LONG_TTL));
  });

  cases.add("UnitOfWorkStore.commit() writes nothing when one document changed", async (s) => {
    const { a, b, lease } = await fixture(s);
    for (const stale of [{ key: a, expectedVersion: 1 }, { key: b, expectedVersion: 1 }]) {
      await assert.rejects(
        s.units.commit({
          documents: [
            { key: b === stale.key ? a : b, value: "x", expectedVersion: b === stale.key ? 2 : 0 },
            { ...stale, value: "y" },
          ],
          fences: [lease],
          release: [lease],
        }),
        ConflictError,
      );
    }
    // A create over an existing document is a conflict too.
    await assert.rejects(
      s.units.commit({
        documents: [{ key: a, value: "z", expectedVersion: 0 }],
        fences: [],
        release: [lease],
      }),
      ConflictError,
    );
    assert.deepEqual(await s.documents.get(a), { id: "a", value: { n: 2 }, version: 2 });
    assert.equal(await s.documents.get(b), null);
    assert.equal(await s.locks.release(lease), true, "A failed commit releases nothing");
  });

  cases.add("UnitOfWorkStore.commit() writes nothing once a fence is lost", async (s) => {
    const { a, b, lease } = await fixture(s);
    const other = await s.locks.acquire(`uow:${suffix()}`, LONG_TTL);
    assert.ok(other);
    assert.equal(await s.locks.release(lease), true);
    const taken = await s.locks.acquire(lease.key, LONG_TTL);
    assert.ok(taken, "Someone else holds it now");
    const error = await s.units.commit({
      documents: [
        { key: a, value: "x", expectedVersion: 2 },
        { key: b, value: "y", expectedVersion: 0 },
      ],
      fences: [other, lease],
      release: [other, lease],
    }).catch((e) => e);
    assert.ok(error instanceof LeaseLostError, String(error));
    assert.deepEqual(await s.documents.get(a), { id: "a", value: { n: 2 }, version: 2 });
    assert.equal(await s.documents.get(b), null);
    assert.equal(await s.locks.release(other), true, "Nothing released");
    assert.equal(await s.locks.release(taken), true, "The new holder keeps its lease");
  });
}
