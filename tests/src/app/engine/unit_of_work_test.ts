import assert from "node:assert/strict";
import { withUnitOfWork, type WorkNeeds } from "../../../../src/app/engine/unit_of_work.ts";
import { ConflictError } from "../../../../src/domain/errors.ts";
import type { DocumentKey } from "../../../../src/ports/document_store.ts";
import { updateDocument } from "../../../../src/ports/update_document.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { observedSleep } from "../../../_helpers/fake_clock.ts";
import { abortableSleep } from "../../../../lib/abortable_sleep.ts";

const a: DocumentKey = { collection: "c", scope: "s", id: "a" };
const b: DocumentKey = { collection: "c", scope: "s", id: "b" };
const lease = (key: string) => ({
  key,
  ttlMs: 5_000,
  waitMs: 1_000,
  busy: () => new Error("busy"),
});
const needs: WorkNeeds = { leases: [lease("step"), lease("agent")], documents: [a] };

Deno.test("withUnitOfWork() reads once, writes at the end, takes each lease once and commits once", async () => {
  await using deps = await makeTestDeps();
  await deps.storage.documents.create(a, { n: 1 });
  const acquired: string[] = [];
  const commits: number[] = [];
  const counted = {
    ...deps,
    storage: {
      ...deps.storage,
      locks: {
        ...deps.storage.locks,
        acquire: (key: string, ttlMs: number) => {
          acquired.push(key);
          return deps.storage.locks.acquire(key, ttlMs);
        },
      },
      units: {
        ...deps.storage.units,
        begin: deps.storage.units.begin.bind(deps.storage.units),
        commit: (request: Parameters<typeof deps.storage.units.commit>[0]) => {
          commits.push(request.documents.length);
          return deps.storage.units.commit(request);
        },
      },
    },
  };
  const store = deps.storage.documents;
  const result = await withUnitOfWork(counted, needs, async ({ storage, leases }) => {
    assert.deepEqual(leases.map((l) => l.key), ["step", "agent"], "The work gets its leases");
    const next = await updateDocument<{ n: number }>(storage.documents, a, {
      change: (v) => ({ n: v!.n + 1 }),
    });
    await storage.documents.create(b, "new");
    assert.deepEqual(next, { n: 2 });
    assert.deepEqual((await storage.documents.get(a))?.version, 2, "The work sees its writes");
    assert.equal((await store.get(a))?.version, 1, "The store does not, yet");
    assert.equal(await store.get(b), null);
    assert.equal(await deps.storage.locks.acquire("agent", 1_000), null, "Still held");
    return "done";
  });
  assert.equal(result, "done");
  // The leases came with the begin round trip: the lock port was never asked for them.
  assert.deepEqual(acquired.filter((k) => k === "step" || k === "agent"), []);
  assert.deepEqual(commits, [2], "One commit with both writes");
  assert.deepEqual(await store.get(a), { id: "a", value: { n: 2 }, version: 2 });
  assert.deepEqual(await store.get(b), { id: "b", value: "new", version: 1 });
  for (const key of ["step", "agent"]) {
    assert.ok(await deps.storage.locks.acquire(key, 1_000), `${key} released by the commit`);
  }
});

Deno.test("withUnitOfWork() re-applies its changes to a rebase document changed meanwhile, and only to those", async () => {
  await using deps = await makeTestDeps();
  await deps.storage.documents.create(a, { n: 1, where: "home", log: [] });
  const written = await withUnitOfWork(
    deps,
    { ...needs, rebase: [a] },
    async ({ storage }) => {
      await updateDocument<Record<string, unknown>>(storage.documents, a, {
        change: (v) => ({ ...v, n: 2 }),
      });
      await storage.documents.create(b, "new");
      // Someone else, outside the leases, changes another field.
      await deps.storage.documents.replace(a, { n: 1, where: "cafe", log: [] }, {
        expectedVersion: 1,
      });
      return "done";
    },
  );
  assert.equal(written, "done");
  assert.deepEqual(await deps.storage.documents.get(a), {
    id: "a",
    value: { n: 2, where: "cafe", log: [] },
    version: 3,
  });
  assert.deepEqual((await deps.storage.documents.get(b))?.value, "new");
  // A document outside `rebase` that changed meanwhile still fails the whole commit.
  await assert.rejects(
    withUnitOfWork(deps, { ...needs, documents: [a, b], rebase: [a] }, async ({ storage }) => {
      await storage.documents.replace(a, { n: 3, where: "cafe", log: [] }, { expectedVersion: 3 });
      await storage.documents.replace(b, "newer", { expectedVersion: 1 });
      await deps.storage.documents.replace(b, "theirs", { expectedVersion: 1 });
    }),
    ConflictError,
  );
  assert.deepEqual((await deps.storage.documents.get(a))?.value, { n: 2, where: "cafe", log: [] });
  assert.ok(await deps.storage.locks.acquire("agent", 1_000), "Leases released after a conflict");
});

Deno.test("withUnitOfWork() writes nothing when a document it wrote changed meanwhile", async () => {
  await using deps = await makeTestDeps();
  await deps.storage.documents.create(a, { n: 1 });
  await assert.rejects(
    withUnitOfWork(deps, needs, async ({ storage }) => {
      await storage.documents.create(b, "new");
      await storage.documents.replace(a, { n: 5 }, { expectedVersion: 1 });
      await deps.storage.documents.replace(a, { n: 9 }, { expectedVersion: 1 }); // someone else, outside the leases
    }),
    ConflictError,
  );
  assert.deepEqual((await deps.storage.documents.get(a))?.value, { n: 9 });
  assert.equal(await deps.storage.documents.get(b), null, "All or nothing");
  assert.ok(await deps.storage.locks.acquire("agent", 1_000), "Leases released after a conflict");
});

Deno.test("withUnitOfWork() commits what a failing work wrote, then rethrows", async () => {
  await using deps = await makeTestDeps();
  await assert.rejects(
    withUnitOfWork(deps, needs, async ({ storage }) => {
      await storage.documents.create(a, { n: 1 });
      throw new Error("model down");
    }),
    /model down/,
  );
  assert.deepEqual((await deps.storage.documents.get(a))?.value, { n: 1 });
  assert.ok(await deps.storage.locks.acquire("step", 1_000));
});

Deno.test("withUnitOfWork() waits for a busy lease, then reads the documents again", async () => {
  const { sleep, slept } = observedSleep(abortableSleep);
  await using deps = await makeTestDeps({ sleep });
  await deps.storage.documents.create(a, { n: 1 });
  const other = await deps.storage.locks.acquire("agent", 5_000);
  const running = withUnitOfWork(
    deps,
    needs,
    ({ storage }) => storage.documents.get<{ n: number }>(a),
  );
  await slept; // it found the lease busy and waits
  await deps.storage.documents.replace(a, { n: 2 }, { expectedVersion: 1 });
  await deps.storage.locks.release(other!);
  assert.deepEqual((await running)?.value, { n: 2 });
  const x = await deps.storage.locks.acquire("x", 5_000);
  const busy = { leases: [lease("step"), { ...lease("x"), waitMs: 0 }], documents: [a] };
  await assert.rejects(withUnitOfWork(deps, busy, async () => {}), /busy/);
  await deps.storage.locks.release(x!);
  assert.ok(await deps.storage.locks.acquire("step", 1_000), "A busy lease releases the others");
});

Deno.test("withUnitOfWork() writes a document fenced by another lease at once, under it", async () => {
  await using deps = await makeTestDeps();
  await deps.storage.documents.create(a, { n: 1 });
  await withUnitOfWork(deps, needs, async ({ storage }) => {
    const other = await storage.locks.acquire("other-agent", 5_000);
    assert.ok(other);
    const doc = await storage.documents.get<{ n: number }>(a);
    assert.ok(
      await storage.documents.replace(a, { n: 2 }, { expectedVersion: doc!.version, fence: other }),
    );
    assert.equal((await deps.storage.documents.get(a))?.version, 2, "In the store already");
    assert.equal(await storage.locks.release(other), true);
    assert.equal((await storage.documents.get(a))?.version, 2);
  });
  assert.deepEqual(await deps.storage.documents.get(a), { id: "a", value: { n: 2 }, version: 2 });
});

Deno.test("withUnitOfWork() claims in its commit: the work sees the claim read up front, and a claim taken meanwhile writes nothing", async () => {
  await using deps = await makeTestDeps();
  await deps.storage.documents.create(a, { n: 1 });
  const claim = { scope: "results", key: "t1/a" };
  const stored = await withUnitOfWork(deps, { ...needs, claim }, async ({ storage }, claimed) => {
    await storage.documents.replace(a, { n: 2 }, { expectedVersion: 1 });
    claimed.set({ first: true });
    return claimed.stored;
  });
  assert.equal(stored, null, "Nothing was claimed when the work began");
  assert.deepEqual(await deps.storage.idempotency.get("results", "t1/a"), { first: true });
  // A retry sees the claim; one that claims again anyway conflicts and writes nothing.
  await assert.rejects(
    withUnitOfWork(deps, { ...needs, claim }, async ({ storage }, claimed) => {
      assert.deepEqual(claimed.stored, { first: true });
      await storage.documents.replace(a, { n: 3 }, { expectedVersion: 2 });
      claimed.set({ first: false });
    }),
    ConflictError,
  );
  assert.deepEqual(await deps.storage.idempotency.get("results", "t1/a"), { first: true });
  assert.deepEqual((await deps.storage.documents.get(a))?.value, { n: 2 }, "All or nothing");
  assert.ok(await deps.storage.locks.acquire("step", 1_000), "Leases released after a conflict");
});
