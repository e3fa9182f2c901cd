/**
 * @module The embedded idempotency store's packs (values of a bulk `putMany`, many to a KV
 * value): what a fresh store over the same KV (a restart) reads back, how claims, puts, removals
 * and memory appends with claims see packed values, and that single keys still win over packs.
 */
import assert from "node:assert/strict";
import { KvIdempotencyStore } from "../../lib/kv/kv_idempotency_store.ts";
import { KvMemoryStore } from "../../lib/kv/kv_memory_store.ts";
import { ConflictError } from "../../src/domain/errors.ts";
import { makeMemory, newScope } from "../contracts/_contract_support.ts";

const writes = (from: number, to: number, tag = "m") =>
  Array.from({ length: to - from }, (_, k) => ({
    key: `event:e${from + k}`,
    value: `${tag}${from + k}`,
  }));

async function count(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

Deno.test("KvIdempotencyStore.putMany() packs many values; a restarted store reads, claims and overwrites them", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = "w/a";
  await new KvIdempotencyStore({ kv }).put(scope, "event:e5", { value: "old5" });
  await new KvIdempotencyStore({ kv }).putMany(scope, writes(0, 3000));
  assert.equal(await count(kv, ["idem", scope]), 0, "Packed: no key of its own left");
  assert.ok(await count(kv, ["idem_pk", scope]) < 10);

  const store = new KvIdempotencyStore({ kv });
  assert.equal(await store.get(scope, "event:e5"), "m5", "The pack's value replaced the old key");
  assert.equal(await store.get(scope, "event:e2999"), "m2999");
  assert.equal(await store.get(scope, "event:e3000"), null);
  assert.deepEqual(await store.claim(scope, "event:e7", { value: "other" }), {
    created: false,
    value: "m7",
  });
  assert.deepEqual(await store.claim(scope, "event:e3000", { value: "new" }), {
    created: true,
    value: "new",
  });
  await store.put(scope, "event:e8", { value: "put8" });
  assert.equal(await store.get(scope, "event:e8"), "put8", "A key of its own wins over packs");
  // A newer pack wins over an older one, and over the keys written since.
  await store.putMany(scope, writes(0, 100, "n"));
  assert.equal(await new KvIdempotencyStore({ kv }).get(scope, "event:e8"), "n8");
  assert.equal(await new KvIdempotencyStore({ kv }).get(scope, "event:e99"), "n99");
  assert.equal(await new KvIdempotencyStore({ kv }).get(scope, "event:e100"), "m100");

  await store.remove(scope, ["event:e1", "event:e150", "event:e3000"]);
  const fresh = new KvIdempotencyStore({ kv });
  for (const key of ["event:e1", "event:e150", "event:e3000"]) {
    assert.equal(await fresh.get(scope, key), null, key);
  }
  assert.equal(await fresh.get(scope, "event:e2"), "n2");
  assert.deepEqual(await fresh.claim(scope, "event:e150", { value: "again" }), {
    created: true,
    value: "again",
  });

  await fresh.clear(scope);
  assert.equal(await store.get(scope, "event:e2"), null);
  assert.equal(await count(kv, ["idem_pk", scope]), 0);
  assert.equal((await kv.get(["idem_pkn", scope])).value, null);
});

Deno.test("KvMemoryStore.append() with claims sees packed claims: the same value passes, another is taken", async () => {
  using kv = await Deno.openKv(":memory:");
  const scope = newScope();
  const idemScope = `${scope.worldId}/${scope.agentId}`;
  await new KvIdempotencyStore({ kv }).putMany(idemScope, writes(0, 200));
  const memories = new KvMemoryStore({ kv });
  const claim = (key: string, value: string) => ({ scope: idemScope, key, value });
  await memories.append(scope, [makeMemory(scope, "m3")], {
    claims: [claim("event:e3", "m3"), claim("event:e500", "m3")],
  });
  assert.equal(await new KvIdempotencyStore({ kv }).get(idemScope, "event:e500"), "m3");
  await assert.rejects(
    memories.append(scope, [makeMemory(scope, "x")], { claims: [claim("event:e4", "x")] }),
    ConflictError,
  );
  assert.equal(await memories.get(scope, makeMemory(scope, "x").id), null);
});
