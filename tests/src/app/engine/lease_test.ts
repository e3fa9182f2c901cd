import assert from "node:assert/strict";
import { KvLock } from "../../../../lib/kv/kv_lock.ts";
import { withLease } from "../../../../src/app/engine/lease.ts";
import { LeaseLostError } from "../../../../src/domain/errors.ts";
import type { Lock } from "../../../../src/ports/lock.ts";
import type { Storage } from "../../../../src/ports/storage.ts";
import { FakeClock, gate } from "../../../_helpers/fake_clock.ts";

/**
 * Leases in Deno KV whose expiry and whose holders' waits both follow one fake clock; `renew`
 * may be replaced to count or refuse renewals.
 */
async function clockedLeases(renew?: (inner: Lock) => Lock["renew"]) {
  const clock = new FakeClock();
  const kv = await Deno.openKv(":memory:");
  const inner = new KvLock({ kv, now: clock.now });
  const locks: Lock = {
    acquire: (key, ttlMs) => inner.acquire(key, ttlMs),
    release: (lease) => inner.release(lease),
    renew: renew?.(inner) ?? ((lease, ttlMs) => inner.renew(lease, ttlMs)),
  };
  // withLease reads only the locks of the storage.
  const deps = { storage: { locks } as { locks: Lock } as Storage, sleep: clock.sleep };
  return { clock, deps, [Symbol.dispose]: () => kv.close() };
}

Deno.test("withLease() runs one holder at a time and releases on failure", async (t) => {
  using leases = await clockedLeases();
  const { clock, deps } = leases;
  const opts = { ttlMs: 5_000, waitMs: 2_000, busy: () => new Error("busy") };

  await t.step("a second caller waits for the first", async () => {
    const order: string[] = [];
    const first = gate();
    const a = withLease(deps, { key: "k", ...opts }, async () => {
      order.push("a+");
      await first.opened();
      order.push("a-");
    });
    await first.entered;
    const b = withLease(deps, { key: "k", ...opts }, () => Promise.resolve(order.push("b")));
    await clock.sleeping(2); // a's renewal timer and b polling the busy lease
    first.open();
    await a;
    clock.advance(250); // b's next poll
    await b;
    assert.deepEqual(order, ["a+", "a-", "b"]);
  });

  await t.step("a throwing holder releases the lease", async () => {
    await assert.rejects(
      withLease(deps, { key: "k", ...opts }, () => Promise.reject(new Error("boom"))),
      /boom/,
    );
    assert.equal(await withLease(deps, { key: "k", ...opts }, () => Promise.resolve(7)), 7);
  });

  await t.step("waitMs 0 gives up at once with the busy error", async () => {
    const held = gate();
    const holder = withLease(deps, { key: "k", ...opts }, held.opened);
    await held.entered;
    await assert.rejects(
      withLease(deps, { key: "k", ...opts, waitMs: 0 }, () => Promise.resolve(1)),
      /busy/,
    );
    held.open();
    await holder;
  });
});

Deno.test("withLease() renews the lease while work outlasts its TTL", async () => {
  let renewals = 0;
  using leases = await clockedLeases(
    (inner) => (lease, ttl) => (renewals++, inner.renew(lease, ttl)),
  );
  const { clock, deps } = leases;
  const opts = { ttlMs: 1_500, waitMs: 0, busy: () => new Error("busy") };
  const holder = withLease(deps, { key: "slow", ...opts }, async (held) => {
    await deps.sleep(3_500);
    held.assertHeld();
    return "done";
  });
  // Renewals come every 500 ms; the work and the renewal timer are both asleep between them.
  for (let at = 0; at < 2_000; at += 500) {
    await clock.sleeping(2);
    clock.advance(500);
  }
  await clock.sleeping(2);
  // 2 s in, past the first TTL: only the renewals keep the lease from another caller.
  await assert.rejects(withLease(deps, { key: "slow", ...opts }, () => Promise.resolve(1)), /busy/);
  for (let at = 2_000; at < 3_500; at += 500) {
    await clock.sleeping(2);
    clock.advance(500);
  }
  assert.equal(await holder, "done");
  assert.ok(renewals >= 3, `renewed ${renewals} times`);
  assert.equal(
    await withLease(deps, { key: "slow", ...opts }, () => Promise.resolve(2)),
    2,
    "Released",
  );
});

Deno.test("withLease() aborts held.signal when a renewal finds the lease lost", async () => {
  using leases = await clockedLeases(() => () => Promise.resolve(false));
  const { clock, deps } = leases;
  const opts = { ttlMs: 150, waitMs: 0, busy: () => new Error("busy") };
  const running = withLease(deps, { key: "lost", ...opts }, async (held) => {
    await deps.sleep(400, held.signal);
    held.assertHeld();
  });
  await clock.sleeping(2);
  clock.advance(50); // the first renewal, refused: the work's sleep ends early
  await assert.rejects(running, (e: unknown) => e instanceof LeaseLostError);
});
