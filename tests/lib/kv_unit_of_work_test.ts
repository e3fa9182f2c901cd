/** @module The embedded unit of work's begin: what it reads, and in how many KV calls. */
import assert from "node:assert/strict";
import { ConflictError, LeaseLostError } from "../../src/domain/errors.ts";
import { KvDocumentStore } from "../../lib/kv/kv_document_store.ts";
import { KvIdempotencyStore } from "../../lib/kv/kv_idempotency_store.ts";
import { KvLock } from "../../lib/kv/kv_lock.ts";
import { KvUnitOfWorkStore } from "../../lib/kv/kv_unit_of_work_store.ts";
import { countingCalls } from "../_helpers/kv_commits.ts";

const TTL = 30_000;

function stores(kv: Deno.Kv) {
  const documents = new KvDocumentStore({ kv });
  const locks = new KvLock({ kv });
  const idempotency = new KvIdempotencyStore({ kv });
  return {
    documents,
    locks,
    idempotency,
    units: new KvUnitOfWorkStore({ kv, documents, locks, idempotency }),
  };
}

Deno.test("KvUnitOfWorkStore.begin() reads leases, documents and the claim in one KV read", async () => {
  using raw = await Deno.openKv(":memory:");
  const { kv, calls: reads } = countingCalls(raw, ["get", "getMany", "list"]);
  const s = stores(kv);
  const a = { collection: "agents", scope: "w", id: "a" };
  const b = { collection: "plans", scope: "w", id: "a" };
  await s.documents.create(a, { name: "Ada" });
  const held = await s.locks.acquire("agent:w:b", TTL);
  assert.ok(held);
  await s.idempotency.claim("tickstep:w", "t1/a", { value: { done: 1 } });
  const before = reads();
  const begun = await s.units.begin({
    leases: [{ key: "step:w:a", ttlMs: TTL }, { key: "agent:w:a", ttlMs: TTL }, {
      key: held.key,
      ttlMs: TTL,
    }],
    documents: [a, b],
    claim: { scope: "tickstep:w", key: "t1/a" },
  });
  assert.equal(reads() - before, 1, "One getMany for the leases, the documents and the claim");
  assert.deepEqual(begun.leases.map((l) => l?.key ?? null), ["step:w:a", "agent:w:a", null]);
  assert.deepEqual(begun.documents, [{ id: "a", value: { name: "Ada" }, version: 1 }, null]);
  assert.deepEqual(begun.claimed, { done: 1 });
  assert.equal(await s.locks.acquire("agent:w:a", TTL), null, "The leases taken are held");
});

Deno.test("KvUnitOfWorkStore.begin() reads a claim or document larger than one KV value, and a count", async () => {
  using kv = await Deno.openKv(":memory:");
  const s = stores(kv);
  const big = {
    steps: Array.from({ length: 3000 }, (_, i) => ({ agent: `a${i}`, did: "walked" })),
  };
  const doc = { collection: "plans", scope: "w", id: "big" };
  await s.documents.create(doc, big);
  await s.idempotency.claim("tickstep:w", "t1/big", { value: big });
  await s.units.commit({
    documents: [],
    fences: [],
    release: [],
    claim: { scope: "tickstep:w", key: "t1/x", value: 1, counter: "t1/#" },
  });
  const large = await s.units.begin({
    leases: [],
    documents: [doc],
    claim: { scope: "tickstep:w", key: "t1/big" },
  });
  assert.deepEqual(large.documents, [{ id: "big", value: big, version: 1 }]);
  assert.deepEqual(large.claimed, big);
  const count = await s.units.begin({
    leases: [],
    documents: [],
    claim: { scope: "tickstep:w", key: "t1/#" },
  });
  assert.equal(count.claimed, 1, "A counter reads as a number, as IdempotencyStore.get reads it");
  const none = await s.units.begin({ leases: [], documents: [], claim: { scope: "x", key: "y" } });
  assert.deepEqual(none, { leases: [], documents: [], claimed: null });
});

Deno.test("KvUnitOfWorkStore.commit() reads nothing when it wrote or read its leases and documents last", async () => {
  using raw = await Deno.openKv(":memory:");
  const { kv, calls: reads } = countingCalls(raw, ["get", "getMany", "list"]);
  const s = stores(kv);
  const a = { collection: "agents", scope: "w", id: "a" };
  await s.documents.create(a, { n: 1 });
  const begun = await s.units.begin({
    leases: [{ key: "agent:w:a", ttlMs: TTL }],
    documents: [a, { collection: "plans", scope: "w", id: "a" }],
  });
  const lease = begun.leases[0]!;
  const before = reads();
  const committed = await s.units.commit({
    documents: [
      { key: a, value: { n: 2 }, expectedVersion: 1 },
      { key: { collection: "plans", scope: "w", id: "a" }, value: "p", expectedVersion: 0 },
    ],
    fences: [lease],
    release: [lease],
    claim: { scope: "tickstep:w", key: "t1/a", value: 1 },
  });
  assert.deepEqual(committed, { count: null });
  assert.equal(reads() - before, 0, "Checked against what begin read and took");
  assert.deepEqual(await s.documents.get(a), { id: "a", value: { n: 2 }, version: 2 });
  assert.deepEqual(await s.idempotency.get("tickstep:w", "t1/a"), 1);
  assert.ok(await s.locks.acquire("agent:w:a", TTL), "The lease was released");
});

Deno.test("KvUnitOfWorkStore.commit() still refuses what another process changed since it read", async () => {
  using kv = await Deno.openKv(":memory:");
  const s = stores(kv);
  const other = stores(kv); // another process on the same store: its writes are not known here
  const a = { collection: "agents", scope: "w", id: "a" };
  await s.documents.create(a, { n: 1 });
  const begun = await s.units.begin({ leases: [{ key: "agent:w:a", ttlMs: TTL }], documents: [a] });
  const lease = begun.leases[0]!;
  await other.documents.replace(a, { n: 9 }, { expectedVersion: 1 });
  await assert.rejects(
    s.units.commit({
      documents: [{ key: a, value: { n: 2 }, expectedVersion: 1 }],
      fences: [lease],
      release: [],
    }),
    (e) => e instanceof ConflictError && !(e instanceof LeaseLostError),
  );
  // The lease taken over by another process once expired: the fence no longer holds.
  await kv.set(["lock", lease.key], { token: "theirs", expiresAt: Date.now() + TTL });
  await assert.rejects(
    s.units.commit({
      documents: [{ key: a, value: { n: 3 }, expectedVersion: 2 }],
      fences: [lease],
      release: [lease],
    }),
    LeaseLostError,
  );
  await other.idempotency.claim("tickstep:w", "t1/a", { value: "theirs" });
  await assert.rejects(
    s.units.commit({
      documents: [],
      fences: [],
      release: [],
      claim: { scope: "tickstep:w", key: "t1/a", value: "mine" },
    }),
    ConflictError,
  );
  assert.deepEqual(await s.documents.get(a), { id: "a", value: { n: 9 }, version: 2 });
  assert.equal(await s.idempotency.get("tickstep:w", "t1/a"), "theirs");
});

Deno.test("KvUnitOfWorkStore sees claims put in bulk (packed): begin reads them, commit refuses them", async () => {
  using kv = await Deno.openKv(":memory:");
  const s = stores(kv);
  const other = stores(kv);
  const bulk = (from: number) =>
    Array.from({ length: 80 }, (_, i) => ({ key: `e${from + i}`, value: { memory: from + i } }));
  await s.idempotency.putMany("events:w", bulk(0));
  assert.ok((await kv.get(["idem_pkn", "events:w"])).versionstamp, "The bulk put was packed");
  const begun = await s.units.begin({
    leases: [],
    documents: [],
    claim: { scope: "events:w", key: "e7" },
  });
  assert.deepEqual(begun.claimed, { memory: 7 });
  const claimOf = (key: string) => ({
    documents: [],
    fences: [],
    release: [],
    claim: { scope: "events:w", key, value: "mine" },
  });
  await assert.rejects(s.units.commit(claimOf("e7")), ConflictError);
  await s.units.commit(claimOf("new-1")); // the scope's marker is now known here
  // Another process packs more: a claim on one of them is refused although this one's marker was known.
  await other.idempotency.putMany("events:w", bulk(100));
  await assert.rejects(s.units.commit(claimOf("e150")), ConflictError);
  assert.deepEqual(await s.idempotency.get("events:w", "e150"), { memory: 150 });
  await s.units.commit(claimOf("new-2"));
  assert.equal(await s.idempotency.get("events:w", "new-2"), "mine");
});
