/** @module Runs the storage contract on the embedded (Deno KV) backend, plus what only KV does. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { KvAuditLog } from "../../lib/kv/kv_audit_log.ts";
import { KvDocumentStore } from "../../lib/kv/kv_document_store.ts";
import { KvEventLog } from "../../lib/kv/kv_event_log.ts";
import { KvIdempotencyStore } from "../../lib/kv/kv_idempotency_store.ts";
import { KvMemoryStore } from "../../lib/kv/kv_memory_store.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { KvVectorIndex } from "../../lib/kv/kv_vector_index.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { SimulacraError, StoreUnavailableError } from "../../src/domain/errors.ts";
import type { AgentScope } from "../../src/domain/ids.ts";
import type { MemoryKind, MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import { rankMemories } from "../../src/app/memory/retrieval.ts";
import { rankCandidates } from "../../src/domain/memory/scoring.ts";
import { resolveWeights } from "../../src/domain/world/retrieval_weights.ts";
import type { Storage } from "../../src/ports/storage.ts";
import { addMinutes, gameMinutes } from "../../src/domain/time/game_time.ts";
import {
  assertRejectsCode,
  at,
  makeMemories,
  makeMemory,
  mid,
  newScope,
  newWorldId,
} from "../contracts/_contract_support.ts";
import { storageContract } from "../contracts/storage_contract.ts";
import { countingCommits } from "../_helpers/kv_commits.ts";

const DIMENSIONS = 8;

storageContract("kv", () => openKvStorage({ dimensions: DIMENSIONS }));

// The same contract on a file, so the file-backed KV runs every case too.
const contractDir = await Deno.makeTempDir({ prefix: "simulacra-kv-contract-" });
storageContract(
  "kv-file",
  () => openKvStorage({ path: join(contractDir, "nested", "contract.kv"), dimensions: DIMENSIONS }),
);
globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(contractDir, { recursive: true });
  } catch {
    // A temp dir: best effort.
  }
});

/** A temp directory for one test, removed afterwards. */
async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "simulacra-kv-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * A KV whose atomic commits fail from the `failAt`-th one on (1-based), counting from when
 * `arm()` is called: a disk or KV failure in the middle of a multi-operation write.
 */
function faultyKv(kv: Deno.Kv): { kv: Deno.Kv; arm(failAt: number): void; disarm(): void } {
  let remaining = Infinity;
  const wrapOp = (op: Deno.AtomicOperation): Deno.AtomicOperation => {
    const proxy: Deno.AtomicOperation = new Proxy(op, {
      get(target, prop) {
        if (prop === "commit") {
          return () => {
            if (--remaining <= 0) return Promise.reject(new Error("disk I/O error (injected)"));
            return target.commit();
          };
        }
        const value = Reflect.get(target, prop, target);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          const result = value.apply(target, args);
          return result === target ? proxy : result;
        };
      },
    });
    return proxy;
  };
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      if (prop === "atomic") return () => wrapOp(target.atomic());
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    kv: wrapped,
    arm(failAt) {
      remaining = failAt;
    },
    disarm() {
      remaining = Infinity;
    },
  };
}

async function countKeys(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

function bigBatch(scope: AgentScope, prefix: string, count: number): MemoryRecord[] {
  return makeMemories(scope, prefix, count).map((m, i) => ({
    ...m,
    description: `${i} `.padEnd(2000, "a long description "),
  }));
}

Deno.test("openKvStorage() keeps memories, vectors, documents and events across close and reopen", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "data", "simulacra.kv");
    const scope = newScope();
    const memories = bigBatch(scope, "m", 600);
    const v = (i: number) =>
      Float32Array.from({ length: DIMENSIONS }, (_, j) => (j === i ? 2 : 0.1));

    const first = await openKvStorage({ path, dimensions: DIMENSIONS });
    try {
      await first.memories.append(scope, memories);
      await first.memories.touch(scope, [mid("m-010")], at(5000));
      assert.equal(await first.memories.setImportance(scope, mid("m-020"), 10), true);
      await first.memories.revise(scope, [
        { id: mid("m-030"), archivedAt: at(6000) },
        { id: mid("m-031"), supersededBy: mid("m-032"), invalidAt: at(6000), count: 2 },
      ]);
      await first.vectors.upsert(scope, [{ id: mid("m-000"), vector: v(0) }, {
        id: mid("m-001"),
        vector: v(1),
      }]);
      await first.vectors.query(scope, v(0), 1);
      await first.vectors.upsert(scope, [{ id: mid("m-002"), vector: v(2) }]);
      await first.documents.create({ collection: "worlds", scope: "", id: "ville" }, { now: "t0" });
      await first.documents.replace(
        { collection: "worlds", scope: "", id: "ville" },
        { now: "t1" },
        { expectedVersion: 1 },
      );
      await first.events.append(scope.worldId, [{ type: "tick", at: at(0) }, {
        type: "tock",
        at: at(1),
      }]);
      await first.idempotency.claim("w", "tick-1", { value: { done: true } });
      await first.usage.add({
        worldId: scope.worldId,
        agentId: scope.agentId,
        operation: "importance",
        model: "m",
        estimated: false,
        calls: 1,
        promptTokens: 3,
        completionTokens: 4,
      });
    } finally {
      await first.close();
    }

    const second = await openKvStorage({ path, dimensions: DIMENSIONS });
    try {
      assert.equal(await second.memories.count(scope, { status: "all" }), 600);
      assert.equal(await second.memories.count(scope), 599);
      assert.equal((await second.memories.get(scope, mid("m-030")))?.archivedAt, at(6000));
      const superseded = await second.memories.get(scope, mid("m-031"));
      assert.deepEqual([superseded?.supersededBy, superseded?.count], ["m-032", 2]);
      const all = await second.memories.all(scope);
      assert.deepEqual(all.map((m) => m.id), memories.map((m) => m.id));
      assert.equal(all[599].description, memories[599].description);
      assert.equal((await second.memories.get(scope, mid("m-010")))?.lastAccessedAt, at(5000));
      assert.equal((await second.memories.get(scope, mid("m-020")))?.importance, 10);
      assert.deepEqual(await second.memories.top(scope, "lastAccessed", 1), ["m-010"]);
      assert.deepEqual(await second.memories.top(scope, "importance", 1), ["m-020"]);
      const matches = await second.vectors.query(scope, v(2), 3);
      assert.deepEqual(matches.map((m) => m.id), ["m-002", "m-000", "m-001"]);
      assert.deepEqual(
        await second.documents.get({ collection: "worlds", scope: "", id: "ville" }),
        {
          id: "ville",
          value: { now: "t1" },
          version: 2,
        },
      );
      assert.deepEqual((await second.events.read(scope.worldId, 0, 10)).map((e) => e.seq), [1, 2]);
      const [next] = await second.events.append(scope.worldId, [{ type: "again", at: at(2) }]);
      assert.equal(next.seq, 3, "The seq counter survives a reopen");
      assert.deepEqual(await second.idempotency.get("w", "tick-1"), { done: true });
      assert.equal((await second.usage.totals(scope.worldId)).total.completionTokens, 4);
      await second.memories.append(scope, [
        makeMemory(scope, "after-reopen", { createdAt: at(9999) }),
      ]);
      assert.equal(await second.memories.count(scope), 600);
    } finally {
      await second.close();
    }
  });
});

Deno.test("KvMemoryStore.append() leaves nothing visible when KV fails between its atomic operations", async () => {
  using raw = await Deno.openKv(":memory:");
  const faulty = faultyKv(raw);
  const store = new KvMemoryStore({ kv: faulty.kv });
  const scope = newScope();
  await store.append(scope, makeMemories(scope, "old", 3));
  const batch = bigBatch(scope, "big", 500); // ~1.1 MB: two atomic operations at least
  faulty.arm(2); // the first operation commits, the final (head) one fails
  const error = await assertRejectsCode(store.append(scope, batch), "store_unavailable");
  assert.ok(error instanceof StoreUnavailableError);
  assert.match(String((error.cause as Error).message), /injected/);
  assert.ok(!error.message.includes("long description"), "No user text in messages");
  faulty.disarm();

  assert.equal(await store.count(scope), 3, "Nothing of the failed batch is visible");
  assert.equal(await store.get(scope, mid("big-000")), null);
  assert.equal(
    await countKeys(raw, ["mem", scope.worldId, scope.agentId, "rec"]),
    3,
    "Leftovers were removed",
  );
  assert.equal(await countKeys(raw, ["mem", scope.worldId, scope.agentId, "rpk"]), 0);
  const fresh = new KvMemoryStore({ kv: raw });
  assert.equal(await fresh.count(scope), 3);

  await store.append(scope, batch); // the same ids are free to use
  assert.equal(await store.count(scope), 503);
  assert.equal(await new KvMemoryStore({ kv: raw }).count(scope), 503);
});

Deno.test("KvMemoryStore.touch() of more memories than one atomic operation holds is all or nothing", async () => {
  using raw = await Deno.openKv(":memory:");
  const faulty = faultyKv(raw);
  const store = new KvMemoryStore({ kv: faulty.kv });
  const scope = newScope();
  const all = makeMemories(scope, "m", 1200);
  await store.append(scope, all);
  await store.touch(scope, [mid("m-000")], at(10_000));
  faulty.arm(2);
  await assertRejectsCode(
    store.touch(scope, all.map((m) => m.id), at(20_000)),
    "store_unavailable",
  );
  faulty.disarm();
  for (const s of [store, new KvMemoryStore({ kv: raw })]) {
    const records = await s.all(scope);
    assert.equal(records.filter((r) => r.lastAccessedAt === at(20_000)).length, 0);
    assert.equal(
      records[0].lastAccessedAt,
      at(10_000),
      "Earlier touches are rolled back to, not lost",
    );
    assert.equal(records[1].lastAccessedAt, at(1));
  }
  await store.touch(scope, all.map((m) => m.id), at(20_000));
  const reloaded = await new KvMemoryStore({ kv: raw }).all(scope);
  assert.ok(reloaded.every((r) => r.lastAccessedAt === at(20_000)));
});

Deno.test("KvMemoryStore ignores and removes what a crashed process left uncommitted", async () => {
  using raw = await Deno.openKv(":memory:");
  const scope = newScope();
  await new KvMemoryStore({ kv: raw }).append(scope, makeMemories(scope, "m", 2));
  await new KvMemoryStore({ kv: raw }).touch(scope, [mid("m-000")], at(100));
  // What a crash mid-write leaves (layout documented in kv_memory_store.ts): a record past
  // the head's seq, and overlays of a transaction past the head's txn.
  const prefix = ["mem", scope.worldId, scope.agentId];
  const head = (await raw.get<{ seq: number; txn: number }>([...prefix, "head"])).value!;
  const ghost = makeMemory(scope, "ghost");
  await raw.set(
    [...prefix, "rec", head.seq + 1, 0],
    new TextEncoder().encode(JSON.stringify(ghost)),
  );
  await raw.set([...prefix, "ovl", 1], {
    txn: head.txn + 1,
    next: { lastAccessedAt: at(999), importance: 9 },
    prev: { lastAccessedAt: at(100), importance: 3 },
  });
  await raw.set([...prefix, "ovl", 2], {
    txn: head.txn + 1,
    next: { lastAccessedAt: at(999), importance: 9 },
    prev: null,
  });

  const store = new KvMemoryStore({ kv: raw });
  assert.deepEqual((await store.all(scope)).map((m) => [m.id, m.lastAccessedAt, m.importance]), [
    ["m-000", at(100), 3],
    ["m-001", at(1), 3],
  ]);
  assert.equal(await countKeys(raw, [...prefix, "rec"]), 2);
  assert.equal(await countKeys(raw, [...prefix, "ovl"]), 1);
  await store.append(scope, [ghost]); // its seq is reused cleanly
  assert.deepEqual(await new KvMemoryStore({ kv: raw }).get(scope, mid("ghost")), ghost);
});

Deno.test("KvEventLog.append() of a batch larger than one atomic operation is all or nothing", async () => {
  using raw = await Deno.openKv(":memory:");
  const faulty = faultyKv(raw);
  const log = new KvEventLog({ kv: faulty.kv });
  const world = newWorldId();
  const events = Array.from({ length: 1500 }, (_, i) => ({ type: "step", at: at(0), i }));
  faulty.arm(2);
  await assertRejectsCode(log.append(world, events), "store_unavailable");
  faulty.disarm();
  assert.deepEqual(await log.read(world, 0, 10), []);
  const [single] = await log.append(world, [{ type: "one", at: at(0) }]);
  assert.equal(single.seq, 1, "A failed batch uses no seq");
  const logged = await log.append(world, events);
  assert.deepEqual([logged[0].seq, logged[1499].seq], [2, 1501]);
  const read = await log.read(world, 0, 2000);
  assert.deepEqual(read.map((e) => e.seq), Array.from({ length: 1501 }, (_, i) => i + 1));
  assert.equal(read[1].type, "step", "The leftover of the failed batch was overwritten");
});

Deno.test("KvAuditLog.append() commits entries appended together in a few commits, each entry once", async () => {
  using raw = await Deno.openKv(":memory:");
  const { kv, commits } = countingCommits(raw);
  const log = new KvAuditLog({ kv });
  const entry = (i: number) => ({
    at: new Date().toISOString(),
    method: "POST",
    route: "POST /v1/worlds",
    keyId: i % 2 ? "k_00000000000000000001" : null,
    worldId: "w",
    agentId: null,
    status: 408,
    requestId: `r${i}`,
    ms: 1,
  });
  const stored = await Promise.all(
    Array.from({ length: 300 }, (_, i) => log.append(entry(i), { retentionDays: 1 })),
  );
  assert.ok(commits() <= 5, `${commits()} commits for 300 entries`);
  const page = await log.list({ limit: 1000 }, { retentionDays: 1, now: Date.now() });
  assert.equal(page.entries.length, 300);
  assert.deepEqual(
    new Set(page.entries.map((e) => e.requestId)),
    new Set(stored.map((e) => e.requestId)),
  );
  const byKey = await log.list({ limit: 1000, keyId: "k_00000000000000000001" }, {
    retentionDays: 1,
    now: Date.now(),
  });
  assert.equal(byKey.entries.length, 150);
});

Deno.test("KvDocumentStore and KvIdempotencyStore keep values larger than one KV value", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const docs = new KvDocumentStore({ kv });
    const key = { collection: "worlds", scope: "", id: "big" };
    const big = { tree: "x".repeat(200_000), items: Array.from({ length: 2000 }, (_, i) => i) };
    await docs.create(key, big);
    assert.deepEqual((await docs.get(key))?.value, big);
    assert.ok(await countKeys(kv, ["doc_part"]) >= 4);
    await docs.replace(key, { small: true }, { expectedVersion: 1 });
    assert.equal(await countKeys(kv, ["doc_part"]), 0, "Old parts go with the old version");
    await docs.replace(key, big, { expectedVersion: 2 });
    assert.deepEqual(await docs.list("worlds", ""), [{ id: "big", value: big, version: 3 }]);
    assert.equal(await docs.delete(key), true);
    assert.equal(await countKeys(kv, ["doc_part"]), 0);
    await assertRejectsCode(docs.create(key, { huge: "x".repeat(700_000) }), "payload_too_large");

    const idem = new KvIdempotencyStore({ kv });
    const result = {
      steps: Array.from({ length: 3000 }, (_, i) => ({ agent: `a${i}`, did: "walked" })),
    };
    assert.equal((await idem.claim("w", "tick-1", { value: { pending: true } })).created, true);
    await idem.put("w", "tick-1", { value: result });
    assert.deepEqual(await idem.get("w", "tick-1"), result);
    assert.deepEqual(await idem.claim("w", "tick-1", { value: { pending: true } }), {
      created: false,
      value: result,
    });
  } finally {
    kv.close();
  }
});

Deno.test("KvVectorIndex.query() ranks exactly like a brute-force scan, small and large", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const dims = 384;
    const index = new KvVectorIndex({ kv, dimensions: dims });
    let seed = 7;
    const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    for (const size of [100, 3000]) {
      const scope = newScope();
      const vectors = Array.from(
        { length: size },
        () => Float32Array.from({ length: dims }, random),
      );
      const entries = vectors.map((vector, i) => ({ id: mid(`v${i}`), vector }));
      await index.upsert(scope, entries.slice(0, size / 2));
      await index.query(scope, vectors[0], 1); // load, then grow through upserts
      await index.upsert(scope, entries.slice(size / 2));
      await index.delete(scope, [mid("v3"), mid("v4")]);
      const query = Float32Array.from({ length: dims }, random);
      const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
      const expected = entries
        .filter((e) => e.id !== "v3" && e.id !== "v4")
        .map((e) => ({
          id: e.id,
          score: e.vector.reduce((s, x, j) => s + x * query[j], 0) / (norm(e.vector) * norm(query)),
        }))
        .sort((a, b) => b.score - a.score)
        .slice(0, 25);
      const got = await index.query(scope, query, 25);
      assert.deepEqual(got.map((m) => m.id), expected.map((m) => m.id), `size ${size}`);
      got.forEach((m, i) => assert.ok(Math.abs(m.score - expected[i].score) < 1e-5));
      const cosineOf = await index.similarities(scope, query);
      assert.ok(Math.abs(cosineOf(expected[24].id)! - expected[24].score) < 1e-5);
      assert.equal(cosineOf(mid("v3")), undefined);
      assert.equal((await index.query(scope, query, size * 2)).length, size - 2);
    }
    await assertRejectsCode(
      index.upsert(newScope(), [{ id: mid("zero"), vector: new Float32Array(dims) }]),
      "invalid_request",
    );
  } finally {
    kv.close();
  }
});

Deno.test("KvMemoryStore.list() rejects a malformed cursor or a limit outside 1-1000 with invalid_request", async () => {
  const storage = await openKvStorage({ dimensions: DIMENSIONS });
  try {
    const scope = newScope();
    await storage.memories.append(scope, makeMemories(scope, "m", 3));
    await assertRejectsCode(
      storage.memories.list(scope, { limit: 2, cursor: "%%%" }),
      "invalid_request",
    );
    await assertRejectsCode(
      storage.memories.list(scope, { limit: 2, cursor: btoa("{}") }),
      "invalid_request",
    );
    await assertRejectsCode(storage.memories.list(scope, { limit: 0 }), "invalid_request");
    await assertRejectsCode(storage.memories.list(scope, { limit: 1001 }), "invalid_request");
    await assertRejectsCode(
      storage.memories.setImportance(scope, mid("m-000"), 11),
      "invalid_request",
    );
  } finally {
    await storage.close();
  }
});

Deno.test("KvStorage methods throw store_unavailable, keeping the cause, after close()", async () => {
  const storage = await openKvStorage({ dimensions: DIMENSIONS });
  await storage.ping();
  await storage.close();
  await storage.close(); // idempotent
  const error = await assertRejectsCode(storage.ping(), "store_unavailable");
  assert.ok(error.cause !== undefined);
  assert.equal(error.name, "StoreUnavailableError");
  const scope = newScope();
  await assertRejectsCode(storage.memories.count(scope), "store_unavailable");
  await assertRejectsCode(storage.events.read(scope.worldId, 0, 1), "store_unavailable");
  await assertRejectsCode(storage.locks.acquire("k", 1000), "store_unavailable");
});

Deno.test("openKvStorage() rejects a dimension outside 1-15,000 with config_error", async () => {
  for (const dimensions of [0, -1, 1.5, 20_000]) {
    await assertRejectsCode(openKvStorage({ dimensions }), "config_error");
  }
  await assertRejectsCode(
    openKvStorage({ dimensions: DIMENSIONS }).then(async (s) => {
      try {
        await s.documents.get({ collection: "c", scope: "s", id: "x".repeat(3000) });
      } finally {
        await s.close();
      }
    }),
    "invalid_request",
  );
  assert.ok(new SimulacraError("config_error", "x") instanceof Error);
});

/** The unit vector KvVectorIndex stores or queries with for `vector` (float32, as it rounds). */
function unitOf(vector: Float32Array): Float32Array {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i] * vector[i];
  norm = Math.sqrt(norm);
  return Float32Array.from(vector, (x) => x / norm);
}

/**
 * The cosine the embedded index computes, by brute force: a float32 dot product summed in
 * ascending dimension order over the query's non-zero dimensions, kept within [-1, 1].
 */
function float32Cosine(stored: Float32Array, unit: Float32Array): number {
  let sum = 0;
  for (let j = 0; j < unit.length; j++) {
    if (unit[j] !== 0) sum = Math.fround(sum + Math.fround(unit[j] * stored[j]));
  }
  return Math.max(-1, Math.min(1, sum));
}

interface ScannedRow {
  record: MemoryRecord;
  cosine: number;
  accessedMinutes: number;
  importance: number;
}

/** Scans an agent, copying the rows out of `read`, by id. */
/** A scan that reads nothing, for the checks of the query. */
const scanNothing = {
  exact: () => null,
  fromCandidates: () => Promise.resolve(null),
};

async function scanRows(
  storage: Storage,
  scope: AgentScope,
  query: Float32Array,
  kinds?: readonly MemoryKind[],
): Promise<Map<string, ScannedRow>> {
  return await storage.memoryScan.rank(scope, query, {
    kinds,
    fromCandidates: () => Promise.reject(new Error("the embedded backend scans every memory")),
    exact: (columns) => {
      const rows = new Map<string, ScannedRow>();
      columns.records.forEach((record, i) => {
        assert.ok(!rows.has(record.id), `"${record.id}" is scanned once`);
        rows.set(record.id, {
          record,
          cosine: columns.cosines[i],
          accessedMinutes: columns.accessedMinutes[i],
          importance: columns.importance[i],
        });
      });
      assert.equal(columns.cosines.length, columns.records.length);
      assert.equal(columns.accessedMinutes.length, columns.records.length);
      assert.equal(columns.importance.length, columns.records.length);
      return rows;
    },
  });
}

/**
 * Asserts a scan equals the memory store's records with brute-force cosines of the vectors as
 * last upserted (`upserted`, by id; 0 for a memory without one).
 */
async function assertScanExact(
  storage: Storage,
  scope: AgentScope,
  query: Float32Array,
  upserted: ReadonlyMap<string, Float32Array>,
  kinds?: readonly MemoryKind[],
): Promise<void> {
  const all = (await storage.memories.all(scope)).filter((m) => !kinds || kinds.includes(m.kind));
  const unit = unitOf(query);
  const rows = await scanRows(storage, scope, query, kinds);
  assert.deepEqual([...rows.keys()].sort(), all.map((m) => m.id).sort());
  for (const memory of all) {
    const row = rows.get(memory.id)!;
    const vector = upserted.get(memory.id);
    assert.deepEqual(row.record, memory);
    assert.equal(
      row.cosine,
      vector === undefined ? 0 : float32Cosine(unitOf(vector), unit),
      memory.id,
    );
    assert.equal(row.accessedMinutes, gameMinutes(memory.lastAccessedAt));
    assert.equal(row.importance, memory.importance);
  }
}

/** Vectors upserted per scope, to check scans against. */
class Upserts {
  readonly #byScope = new Map<string, Map<string, Float32Array>>();

  of(scope: AgentScope): Map<string, Float32Array> {
    const key = `${scope.worldId}/${scope.agentId}`;
    let map = this.#byScope.get(key);
    if (map === undefined) this.#byScope.set(key, map = new Map());
    return map;
  }

  async upsert(
    storage: Storage,
    scope: AgentScope,
    entries: { id: string; vector: Float32Array }[],
  ): Promise<void> {
    await storage.vectors.upsert(scope, entries.map((e) => ({ ...e, id: mid(e.id) })));
    for (const e of entries) this.of(scope).set(e.id, e.vector);
  }

  async delete(storage: Storage, scope: AgentScope, ids: string[]): Promise<void> {
    await storage.vectors.delete(scope, ids.map(mid));
    for (const id of ids) this.of(scope).delete(id);
  }
}

Deno.test("kvMemoryScan().rank() keeps memories aligned with their vectors through writes and a restart", async () => {
  await withTempDir(async (dir) => {
    const path = join(dir, "scan.kv");
    const scope = newScope();
    const sibling = newScope(scope.worldId);
    const twin = newScope(undefined, scope.agentId); // same agent id, another world
    let seed = 11;
    const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    const vectorsOf = (ids: string[]) =>
      ids.map((id) => ({ id, vector: Float32Array.from({ length: DIMENSIONS }, random) }));
    const query = Float32Array.from({ length: DIMENSIONS }, (_, j) => (j % 3 === 0 ? 0 : j - 3));
    const kinds: MemoryKind[] = ["observation", "reflection", "plan"];
    const batch = (prefix: string, count: number, start: number) =>
      makeMemories(scope, prefix, count, start).map((m, i) => ({ ...m, kind: kinds[i % 3] }));
    const vectors = new Upserts();
    const check = (storage: Storage, where: AgentScope, only?: readonly MemoryKind[]) =>
      assertScanExact(storage, where, query, vectors.of(where), only);

    const first = await openKvStorage({ path, dimensions: DIMENSIONS });
    try {
      // Vectors before their memories (as ingest writes them), and a vector with no memory.
      const a = batch("a", 40, 0);
      await vectors.upsert(first, scope, vectorsOf([...a.map((m) => m.id), "orphan"]));
      await first.memories.append(scope, a);
      await check(first, scope);
      // Memories whose vectors arrive after a scan, and some that never get one.
      const b = batch("b", 30, 100);
      await first.memories.append(scope, b);
      await check(first, scope);
      await vectors.upsert(first, scope, vectorsOf(b.slice(0, 20).map((m) => m.id)));
      await check(first, scope);
      // Replaced and deleted vectors (a delete moves the last row into the freed slot).
      await vectors.upsert(first, scope, vectorsOf(["a-005"]));
      await vectors.delete(first, scope, ["a-000", "b-003"]);
      await check(first, scope);
      // Mutable fields.
      await first.memories.touch(scope, [mid("a-001"), mid("b-010")], at(5000));
      assert.equal(await first.memories.setImportance(scope, mid("a-002"), 9), true);
      await check(first, scope);
      const touched = (await scanRows(first, scope, query)).get("a-001")!;
      assert.equal(touched.accessedMinutes, gameMinutes(at(5000)));
      assert.equal(touched.record.lastAccessedAt, at(5000));
      // Kinds.
      await check(first, scope, ["reflection"]);
      await check(first, scope, ["plan", "observation"]);
      assert.equal((await scanRows(first, scope, query, ["chat"])).size, 0);
      // Other agents and worlds are apart.
      await vectors.upsert(first, sibling, vectorsOf(["a-001"]));
      await first.memories.append(sibling, [
        makeMemory(sibling, "a-001"),
        makeMemory(sibling, "s"),
      ]);
      await first.memories.append(twin, [makeMemory(twin, "t")]);
      assert.equal((await scanRows(first, scope, query)).size, 70);
      assert.deepEqual([...(await scanRows(first, sibling, query)).keys()].sort(), ["a-001", "s"]);
      assert.deepEqual([...(await scanRows(first, twin, query)).keys()], ["t"]);
      await check(first, sibling);
      await check(first, twin);
      assert.equal((await scanRows(first, newScope(), query)).size, 0);
      await assertRejectsCode(
        first.memoryScan.rank(scope, new Float32Array(DIMENSIONS), scanNothing),
        "invalid_request",
      );
      await assertRejectsCode(
        first.memoryScan.rank(scope, new Float32Array(DIMENSIONS + 1).fill(1), scanNothing),
        "invalid_request",
      );
    } finally {
      await first.close();
    }

    const second = await openKvStorage({ path, dimensions: DIMENSIONS });
    try {
      await check(second, scope);
      await check(second, scope, ["observation"]);
      await check(second, sibling);
      await second.memories.append(scope, batch("c", 5, 200));
      await vectors.upsert(second, scope, vectorsOf(["c-001"]));
      await check(second, scope);
      assert.equal((await scanRows(second, scope, query)).size, 75);
    } finally {
      await second.close();
    }
  });
});

Deno.test("kvMemoryScan().rank() scores like a float32 brute force as the slab grows past its block sizes", async () => {
  const dims = 24;
  const storage = await openKvStorage({ dimensions: dims });
  try {
    const scope = newScope();
    let seed = 3;
    const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32) - 0.5;
    // Sparse vectors (a few non-zero dimensions, like the local embedder's) and dense ones.
    const sparse = () => {
      const v = new Float32Array(dims);
      for (let k = 0; k < 4; k++) v[Math.floor((random() + 0.5) * dims)] = random();
      if (v.every((x) => x === 0)) v[0] = 1;
      return v;
    };
    const dense = () => Float32Array.from({ length: dims }, random);
    const queries = [sparse(), sparse(), dense()];
    const vectors = new Upserts();
    // 63 and 64 rows, the kernel threshold (512), one block (4096), then three blocks.
    for (const size of [63, 64, 500, 513, 4096, 4097, 9000]) {
      const have = await storage.memories.count(scope);
      const memories = makeMemories(scope, "m", size - have, have).map((m, i) => ({
        ...m,
        id: mid(`m-${String(have + i).padStart(5, "0")}`),
      }));
      const entries = memories.map((m, i) => ({ id: m.id, vector: i % 2 ? sparse() : dense() }));
      await vectors.upsert(storage, scope, entries);
      await storage.memories.append(scope, memories);
      for (const query of queries) await assertScanExact(storage, scope, query, vectors.of(scope));
    }
    // Deletes move rows across blocks; a replaced vector keeps its slot.
    await vectors.delete(storage, scope, ["m-00000", "m-04096", "m-08998", "m-05000"]);
    await vectors.upsert(storage, scope, [{ id: "m-04097", vector: dense() }]);
    for (const query of queries) await assertScanExact(storage, scope, query, vectors.of(scope));
  } finally {
    await storage.close();
  }
});

Deno.test("rankMemories() on the embedded backend returns exactly rankCandidates over all() with brute-force cosines", async () => {
  const storage = await openKvStorage({ dimensions: 384 });
  try {
    const scope = newScope();
    const embedder = new LocalEmbedder({ dimensions: 384 });
    const subjects = ["Isabella", "Klaus", "Maria", "Sam", "Tom", "Carmen", "John", "Mei"];
    const topics = [
      "the mayoral election",
      "the Valentine's party",
      "rising rent",
      "a new cafe menu",
      "the college exam",
      "a broken stove",
      "the park garden",
      "a music recital",
      "a lost cat",
    ];
    const kinds: MemoryKind[] = ["observation", "observation", "chat", "reflection", "plan"];
    let seed = 5;
    const random = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
    const stored = new Map<string, Float32Array>(); // the unit vectors the index keeps
    for (let start = 0; start < 3000; start += 500) {
      const records = makeMemories(scope, "m", 500, start * 7).map((m, i) => ({
        ...m,
        id: mid(`m-${String(start + i).padStart(4, "0")}`),
        kind: pick(kinds),
        description: `${pick(subjects)} talks about ${pick(topics)} with ${pick(subjects)}`,
        importance: 1 + Math.floor(random() ** 2 * 10),
      }));
      const { vectors } = await embedder.embed(records.map((r) => r.description), {
        operation: "test",
      });
      await storage.vectors.upsert(
        scope,
        records.map((r, i) => ({ id: r.id, vector: vectors[i] })),
      );
      records.forEach((r, i) => stored.set(r.id, unitOf(vectors[i])));
      await storage.memories.append(scope, records);
    }
    const questions = [
      "who is running for mayor",
      "the party at the cafe",
      "rent is rising",
      "what did Klaus say about the exam",
      "the cat",
    ];
    let now = at(3000 * 7 + 60);
    for (let round = 0; round < 12; round++) {
      const question = questions[round % questions.length];
      const query = (await embedder.embed([question], { operation: "test" })).vectors[0];
      const weights = resolveWeights(round % 3 === 2 ? "reference" : "paper");
      const only = round % 4 === 3 ? (["observation", "chat"] as MemoryKind[]) : undefined;
      const options = { at: now, weights, decay: 0.995, k: 10, kinds: only };

      const all = (await storage.memories.all(scope)).filter((m) => !only || only.includes(m.kind));
      const unit = unitOf(query);
      const cosines = all.map((m) => float32Cosine(stored.get(m.id)!, unit));
      const expected = rankCandidates(all, cosines, { ...options, limit: 10 });

      const got = await rankMemories({ storage, embedder }, scope, { query: query, ...options });
      assert.deepEqual(got, {
        ranked: expected,
        candidates: all.length,
        exact: true,
        bounded: true,
      });
      // A float64 brute force agrees up to the float32 rounding of the cosines.
      for (const s of got.ranked) {
        const cosine = stored.get(s.memory.id)!.reduce((sum, x, j) => sum + x * unit[j], 0);
        assert.ok(Math.abs(s.raw.cosine - cosine) < 1e-6);
      }

      // What retrieve() does next, and more writes between queries.
      await storage.memories.touch(scope, got.ranked.map((s) => s.memory.id), now);
      await storage.memories.setImportance(scope, all[Math.floor(random() * all.length)].id, 10);
      now = addMinutes(now, 90);
    }
  } finally {
    await storage.close();
  }
});
