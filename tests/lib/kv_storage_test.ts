/** @module Runs the storage contract on the embedded (Deno KV) backend, plus what only KV does. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { KvDocumentStore } from "../../lib/kv/kv_document_store.ts";
import { KvEventLog } from "../../lib/kv/kv_event_log.ts";
import { KvIdempotencyStore } from "../../lib/kv/kv_idempotency_store.ts";
import { KvMemoryStore } from "../../lib/kv/kv_memory_store.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { KvVectorIndex } from "../../lib/kv/kv_vector_index.ts";
import { SimulacraError, StoreUnavailableError } from "../../src/errors.ts";
import type { AgentScope } from "../../src/ids.ts";
import type { MemoryRecord } from "../../src/memory/memory.ts";
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
        1,
      );
      await first.events.append(scope.worldId, [{ type: "tick", at: at(0) }, {
        type: "tock",
        at: at(1),
      }]);
      await first.idempotency.claim("w", "tick-1", { done: true });
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
      assert.equal(await second.memories.count(scope), 600);
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
      assert.equal(await second.memories.count(scope), 601);
    } finally {
      await second.close();
    }
  });
});

Deno.test("KvMemoryStore.append() leaves nothing visible when KV fails between its atomic operations", async () => {
  const raw = await Deno.openKv(":memory:");
  try {
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
    const fresh = new KvMemoryStore({ kv: raw });
    assert.equal(await fresh.count(scope), 3);

    await store.append(scope, batch); // the same ids are free to use
    assert.equal(await store.count(scope), 503);
    assert.equal(await new KvMemoryStore({ kv: raw }).count(scope), 503);
  } finally {
    raw.close();
  }
});

Deno.test("KvMemoryStore.touch() of more memories than one atomic operation holds is all or nothing", async () => {
  const raw = await Deno.openKv(":memory:");
  try {
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
  } finally {
    raw.close();
  }
});

Deno.test("KvMemoryStore ignores and removes what a crashed process left uncommitted", async () => {
  const raw = await Deno.openKv(":memory:");
  try {
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
  } finally {
    raw.close();
  }
});

Deno.test("KvEventLog.append() of a batch larger than one atomic operation is all or nothing", async () => {
  const raw = await Deno.openKv(":memory:");
  try {
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
  } finally {
    raw.close();
  }
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
    await docs.replace(key, { small: true }, 1);
    assert.equal(await countKeys(kv, ["doc_part"]), 0, "Old parts go with the old version");
    await docs.replace(key, big, 2);
    assert.deepEqual(await docs.list("worlds", ""), [{ id: "big", value: big, version: 3 }]);
    assert.equal(await docs.delete(key), true);
    assert.equal(await countKeys(kv, ["doc_part"]), 0);
    await assertRejectsCode(docs.create(key, { huge: "x".repeat(700_000) }), "payload_too_large");

    const idem = new KvIdempotencyStore({ kv });
    const result = {
      steps: Array.from({ length: 3000 }, (_, i) => ({ agent: `a${i}`, did: "walked" })),
    };
    assert.equal((await idem.claim("w", "tick-1", { pending: true })).created, true);
    await idem.put("w", "tick-1", result);
    assert.deepEqual(await idem.get("w", "tick-1"), result);
    assert.deepEqual(await idem.claim("w", "tick-1", { pending: true }), {
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
