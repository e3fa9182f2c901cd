import assert from "node:assert/strict";
import { withLease } from "../../../src/engine/lease.ts";
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
