/** @module The embedded idempotency store's remove: what it reads, and that it leaves nothing behind. */
import assert from "node:assert/strict";
import { KvIdempotencyStore } from "../../lib/kv/kv_idempotency_store.ts";
import { countingCalls } from "../_helpers/kv_commits.ts";

async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<number> {
  let n = 0;
  for await (const _ of kv.list({ prefix })) n++;
  return n;
}

Deno.test("KvIdempotencyStore.remove() lists parts only of values stored in parts, and leaves none", async () => {
  using raw = await Deno.openKv(":memory:");
  const { kv, calls: lists } = countingCalls(raw, ["list"]);
  const store = new KvIdempotencyStore({ kv });
  const small = Array.from({ length: 27 }, (_, i) => `t1/agent-${i}`);
  for (const key of small) await store.put("tickstep:w", key, { value: { done: true } });
  await store.put("tickstep:w", "big", { value: { text: "x".repeat(200_000) } });
  assert.ok(await keysUnder(raw, ["idem_part"]) > 0, "The large value is stored in parts");

  const before = lists();
  await store.remove("tickstep:w", small);
  assert.equal(lists() - before, 0, "No value of these had parts: nothing to list");
  await store.remove("tickstep:w", ["big", "absent"]);
  assert.equal(lists() - before, 1, "One listing, of the large value's parts");

  assert.equal(await keysUnder(raw, ["idem"]), 0);
  assert.equal(await keysUnder(raw, ["idem_part"]), 0);
  assert.equal(await store.get("tickstep:w", "big"), null);
  assert.equal(await store.get("tickstep:w", small[3]), null);
});
