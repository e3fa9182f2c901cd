/**
 * @module The embedded memory stream's record packs (records appended in bulk, many to a KV
 * value): what a reopened store reads back after bulk and small appends, overlays, removals and
 * an uncommitted pack, and that streams written before packs (one key per record) still load.
 */
import assert from "node:assert/strict";
import { KvMemoryStore } from "../../lib/kv/kv_memory_store.ts";
import type { AgentScope } from "../../src/domain/ids.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";
import { at, makeMemories, mid, newScope } from "../contracts/_contract_support.ts";

const encoder = new TextEncoder();

function prefixOf(scope: AgentScope): Deno.KvKey {
  return ["mem", scope.worldId, scope.agentId];
}

async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix })) keys.push(entry.key);
  return keys;
}

/** The ids of every memory as a fresh store over the same KV (a restart) reads them. */
async function reopenedIds(kv: Deno.Kv, scope: AgentScope): Promise<string[]> {
  return (await new KvMemoryStore({ kv }).all(scope)).map((m) => m.id);
}

Deno.test("KvMemoryStore writes a bulk append as packs and reads them back in append order with single keys", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = newScope();
  const store = new KvMemoryStore({ kv });
  const bulk = makeMemories(scope, "b", 300);
  // One record too large for a pack keeps keys of its own, in the middle of the batch.
  bulk[150] = { ...bulk[150], description: "x".repeat(20_000) };
  await store.append(scope, makeMemories(scope, "a", 3));
  await store.append(scope, bulk);
  await store.append(scope, makeMemories(scope, "c", 2));
  const expected = (await store.all(scope)).map((m) => m.id);
  assert.equal(expected.length, 305);

  const packs = await keysUnder(kv, [...prefixOf(scope), "rpk"]);
  assert.ok(packs.length >= 2 && packs.length < 20, `${packs.length} packs for 299 records`);
  const singles = new Set((await keysUnder(kv, [...prefixOf(scope), "rec"])).map((k) => k[4]));
  assert.equal(singles.size, 3 + 1 + 2, "Small appends and the large record: a key each");

  const fresh = new KvMemoryStore({ kv });
  assert.deepEqual((await fresh.all(scope)).map((m) => m.id), expected);
  const appended = [...makeMemories(scope, "a", 3), ...bulk, ...makeMemories(scope, "c", 2)];
  assert.deepEqual((await fresh.columns(scope)).ids, appended.map((m) => m.id));
  assert.deepEqual(await fresh.get(scope, mid("b-150")), await store.get(scope, mid("b-150")));
  assert.deepEqual(await fresh.get(scope, mid("b-007")), bulk[7]);
});

Deno.test("KvMemoryStore keeps overlays and removals of packed records across a restart", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = newScope();
  const store = new KvMemoryStore({ kv });
  await store.append(scope, makeMemories(scope, "m", 600));
  await store.touch(scope, [mid("m-010"), mid("m-550")], at(5_000));
  await store.revise(scope, [{ id: mid("m-551"), importance: 9, archivedAt: at(6_000) }]);
  // Removing one record of a pack rewrites it; removing every record of a pack deletes it.
  const packs = await keysUnder(kv, [...prefixOf(scope), "rpk"]);
  assert.ok(packs.length >= 3, `${packs.length} packs`);
  const stored = await kv.get<Uint8Array>(packs[0]);
  const { seqs } = JSON.parse(new TextDecoder().decode(stored.value!)) as { seqs: number[] };
  const whole = seqs.map((seq) => mid(`m-${String(seq - 1).padStart(3, "0")}`));
  assert.ok(whole.includes(mid("m-010")) && !whole.includes(mid("m-550")));
  assert.equal(await store.remove(scope, [mid("m-599"), ...whole]), whole.length + 1);

  const fresh = new KvMemoryStore({ kv });
  const ids = await reopenedIds(kv, scope);
  assert.equal(ids.length, 600 - whole.length - 1);
  assert.ok(!ids.includes("m-599") && !ids.includes("m-010"));
  assert.equal((await kv.get(packs[0])).value, null, "The emptied pack is gone");
  assert.equal((await fresh.get(scope, mid("m-550")))?.lastAccessedAt, at(5_000));
  const revised = await fresh.get(scope, mid("m-551"));
  assert.equal(revised?.importance, 9);
  assert.equal(revised?.archivedAt, at(6_000));
  assert.deepEqual(
    (await fresh.all(scope)).map((m) => m.id),
    (await store.all(scope)).map((m) => m.id),
  );
  await fresh.append(scope, makeMemories(scope, "n", 40));
  assert.equal((await reopenedIds(kv, scope)).length, 600 - whole.length - 1 + 40);
});

Deno.test("KvMemoryStore ignores and removes a pack an append left uncommitted", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = newScope();
  await new KvMemoryStore({ kv }).append(scope, makeMemories(scope, "m", 40));
  const prefix = prefixOf(scope);
  const head = (await kv.get<{ seq: number; txn: number }>([...prefix, "head"])).value!;
  const ghosts = makeMemories(scope, "ghost", 2, 1_000);
  const pack = { seqs: [head.seq + 1, head.seq + 2], records: ghosts };
  await kv.set([...prefix, "rpk", head.seq + 1], encoder.encode(JSON.stringify(pack)));

  const store = new KvMemoryStore({ kv });
  assert.equal(await store.count(scope), 40);
  assert.equal(await store.get(scope, mid("ghost-000")), null);
  assert.equal((await kv.get([...prefix, "rpk", head.seq + 1])).value, null, "Cleaned up");
  await store.append(scope, ghosts); // their seqs are reused cleanly
  assert.deepEqual((await reopenedIds(kv, scope)).slice(-2), ["ghost-000", "ghost-001"]);
});

Deno.test("KvMemoryStore loads a stream written before packs: one key per record, in parts", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = newScope();
  const prefix = prefixOf(scope);
  const old: MemoryRecord[] = makeMemories(scope, "old", 100);
  old[5] = { ...old[5], description: "y".repeat(70_000) }; // two parts, as before
  const op = kv.atomic();
  old.forEach((memory, i) => {
    const bytes = encoder.encode(JSON.stringify(memory));
    for (let p = 0; p * 60_000 < bytes.length; p++) {
      op.set([...prefix, "rec", i + 1, p], bytes.subarray(p * 60_000, (p + 1) * 60_000));
    }
  });
  await op.set([...prefix, "head"], { seq: 100, txn: 1 }).commit();

  const store = new KvMemoryStore({ kv });
  assert.deepEqual(await store.all(scope), old);
  await store.append(scope, makeMemories(scope, "new", 50, 1_000)); // packed, after the old keys
  await store.remove(scope, [mid("old-003")]);
  const ids = await reopenedIds(kv, scope);
  assert.equal(ids.length, 149);
  assert.deepEqual(ids.slice(0, 4), ["old-000", "old-001", "old-002", "old-004"]);
  assert.equal(ids[148], "new-049");
});

Deno.test("KvMemoryStore reloaded after a restart pages and ranks by status, kind and index as before", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = newScope();
  const store = new KvMemoryStore({ kv });
  await store.append(scope, makeMemories(scope, "m", 300));
  const pick = (every: number, from: number) =>
    Array.from(
      { length: 300 / every },
      (_, k) => mid(`m-${String(k * every + from).padStart(3, "0")}`),
    );
  await store.touch(scope, pick(7, 3), at(5_000));
  await store.revise(
    scope,
    pick(5, 1).map((id, k) => ({ id, importance: 1 + (k % 9), archivedAt: at(6_000) })),
  );
  await store.revise(scope, pick(11, 2).map((id, k) => ({ id, importance: 1 + ((k * 3) % 9) })));
  const fresh = new KvMemoryStore({ kv });
  for (const status of ["live", "archived", "all"] as const) {
    for (const kind of [undefined, "observation"] as const) {
      const options = { status, kind, limit: 1000, order: "desc" as const };
      assert.deepEqual(await fresh.list(scope, options), await store.list(scope, options), status);
    }
    assert.equal(await fresh.count(scope, { status }), await store.count(scope, { status }));
  }
  const ranked = { heads: 40 };
  assert.deepEqual(
    await fresh.candidates(scope, pick(13, 0), ranked),
    await store.candidates(scope, pick(13, 0), ranked),
  );
});
