import assert from "node:assert/strict";
import { withLease } from "../../../src/engine/lease.ts";
import { LeaseLostError } from "../../../src/errors.ts";
import { makeTestDeps } from "../../_helpers/test_deps.ts";

Deno.test("withLease() runs one holder at a time and releases on failure", async (t) => {
  await using deps = await makeTestDeps();
  const opts = { ttlMs: 5_000, waitMs: 2_000, busy: () => new Error("busy") };

  await t.step("a second caller waits for the first", async () => {
    const order: string[] = [];
    await Promise.all([
      withLease(deps, "k", async () => {
        order.push("a+");
        await deps.sleep(60);
        order.push("a-");
      }, opts),
      deps.sleep(10).then(() => withLease(deps, "k", () => Promise.resolve(order.push("b")), opts)),
    ]);
    assert.deepEqual(order, ["a+", "a-", "b"]);
  });

  await t.step("a throwing holder releases the lease", async () => {
    await assert.rejects(
      withLease(deps, "k", () => Promise.reject(new Error("boom")), opts),
      /boom/,
    );
    assert.equal(await withLease(deps, "k", () => Promise.resolve(7), opts), 7);
  });

  await t.step("waitMs 0 gives up at once with the busy error", async () => {
    const holder = withLease(deps, "k", () => deps.sleep(80), opts);
    await deps.sleep(10);
    await assert.rejects(
      withLease(deps, "k", () => Promise.resolve(1), { ...opts, waitMs: 0 }),
      /busy/,
    );
    await holder;
  });
});

Deno.test("withLease() renews the lease while work outlasts its TTL", async () => {
  await using deps = await makeTestDeps();
  // Real timers: the TTL leaves a loaded machine a second of slack for each renewal to fire.
  const opts = { ttlMs: 1_500, waitMs: 0, busy: () => new Error("busy") };
  let renewals = 0;
  const renew = deps.storage.locks.renew.bind(deps.storage.locks);
  deps.storage.locks.renew = (lease, ttl) => (renewals++, renew(lease, ttl));
  const holder = withLease(deps, "slow", async (held) => {
    await deps.sleep(3_500);
    held.assertHeld();
    return "done";
  }, opts);
  await deps.sleep(2_000);
  await assert.rejects(withLease(deps, "slow", () => Promise.resolve(1), opts), /busy/);
  assert.equal(await holder, "done");
  assert.ok(renewals >= 3, `renewed ${renewals} times`);
  assert.equal(await withLease(deps, "slow", () => Promise.resolve(2), opts), 2, "Released");
});

Deno.test("withLease() aborts held.signal when a renewal finds the lease lost", async () => {
  await using deps = await makeTestDeps();
  deps.storage.locks.renew = () => Promise.resolve(false);
  const opts = { ttlMs: 150, waitMs: 0, busy: () => new Error("busy") };
  await assert.rejects(
    withLease(deps, "lost", async (held) => {
      await deps.sleep(400, held.signal);
      held.assertHeld();
    }, opts),
    (e: unknown) => e instanceof LeaseLostError,
  );
});
