/** @module Contract cases every IdempotencyStore adapter must pass. */
import assert from "node:assert/strict";
import { type ContractCases, suffix } from "./_contract_support.ts";

interface TickResult {
  tick: number;
  steps: string[];
}

function scopeName(): string {
  return `w-${suffix()}`;
}

/** Registers the IdempotencyStore cases. */
export function idempotencyStoreContract(cases: ContractCases): void {
  cases.add(
    "IdempotencyStore.claim() stores the first value and returns it to later claims",
    async (s) => {
      const scope = scopeName();
      const first = await s.idempotency.claim<TickResult>(scope, "tick-1", {
        value: {
          tick: 1,
          steps: ["a"],
        },
      });
      assert.deepEqual(first, { created: true, value: { tick: 1, steps: ["a"] } });
      const again = await s.idempotency.claim<TickResult>(scope, "tick-1", {
        value: { tick: 9, steps: [] },
      });
      assert.deepEqual(again, { created: false, value: { tick: 1, steps: ["a"] } });
    },
  );

  cases.add("IdempotencyStore.claim() lets exactly one of 10 concurrent claims win", async (s) => {
    const scope = scopeName();
    const claims = await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) => s.idempotency.claim(scope, "evt-42", { value: { writer: i } }),
      ),
    );
    const winners = claims.filter((c) => c.created);
    assert.equal(winners.length, 1);
    for (const claim of claims) assert.deepEqual(claim.value, winners[0].value);
    assert.deepEqual(await s.idempotency.get(scope, "evt-42"), winners[0].value);
  });

  cases.add(
    "IdempotencyStore.get() returns null for an unknown key and the value after a claim",
    async (s) => {
      const scope = scopeName();
      assert.equal(await s.idempotency.get(scope, "nope"), null);
      await s.idempotency.claim(scope, "k", { value: { status: "pending" } });
      assert.deepEqual(await s.idempotency.get(scope, "k"), { status: "pending" });
      await s.idempotency.claim(scope, "n", { value: 0 });
      assert.equal(await s.idempotency.get(scope, "n"), 0);
    },
  );

  cases.add(
    "IdempotencyStore.putMany() stores 2,500 keys at once, overwriting small and large values",
    async (s) => {
      const scope = scopeName();
      await s.idempotency.claim(scope, "k0", { value: "old" });
      // A large earlier value (parts on the embedded store) is replaced whole.
      await s.idempotency.put(scope, "k1", { value: "x".repeat(150_000) });
      const writes = Array.from({ length: 2500 }, (_, i) => ({ key: `k${i}`, value: `m${i}` }));
      writes.push({ key: "big", value: "y".repeat(100_000) });
      await s.idempotency.putMany(scope, writes);
      for (const i of [0, 1, 2, 999, 1000, 2499]) {
        assert.equal(await s.idempotency.get(scope, `k${i}`), `m${i}`);
      }
      assert.equal(await s.idempotency.get(scope, "big"), "y".repeat(100_000));
      const again = await s.idempotency.claim(scope, "k7", { value: "late" });
      assert.deepEqual(again, { created: false, value: "m7" });
      // Many keys already stored: putMany overwrites them too.
      await s.idempotency.putMany(scope, writes.slice(0, 300).map((w) => ({ ...w, value: "z" })));
      assert.equal(await s.idempotency.get(scope, "k299"), "z");
      assert.equal(await s.idempotency.get(scope, "k300"), "m300");
      await s.idempotency.clear(scope);
      assert.equal(await s.idempotency.get(scope, "k5"), null);
    },
  );

  cases.add("IdempotencyStore.put() overwrites the value", async (s) => {
    const scope = scopeName();
    await s.idempotency.claim<TickResult | { status: string }>(scope, "tick-7", {
      value: {
        status: "pending",
      },
    });
    await s.idempotency.put<TickResult>(scope, "tick-7", { value: { tick: 7, steps: ["x", "y"] } });
    assert.deepEqual(await s.idempotency.get(scope, "tick-7"), { tick: 7, steps: ["x", "y"] });
    const later = await s.idempotency.claim(scope, "tick-7", { value: { status: "pending" } });
    assert.deepEqual(later, { created: false, value: { tick: 7, steps: ["x", "y"] } });
    await s.idempotency.put(scope, "fresh", { value: { put: true } });
    assert.deepEqual(await s.idempotency.claim(scope, "fresh", { value: { put: false } }), {
      created: false,
      value: { put: true },
    });
  });

  cases.add(
    "IdempotencyStore.claim() and put() with a time to live keep the value, first write wins",
    async (s) => {
      // What every backend guarantees until the time to live has passed (Deno KV may keep an
      // expired value a while longer, so when it goes is asserted per backend, not here).
      const scope = scopeName();
      const keep = { ttlMs: 60_000 };
      assert.deepEqual(await s.idempotency.claim(scope, "t1/a", { value: { n: 1 }, ...keep }), {
        created: true,
        value: { n: 1 },
      });
      assert.deepEqual(await s.idempotency.claim(scope, "t1/a", { value: { n: 2 }, ...keep }), {
        created: false,
        value: { n: 1 },
      });
      await s.idempotency.put(scope, "t1/a", { value: { n: 3 }, ...keep });
      await s.idempotency.put(scope, "t1/b", { value: "big".repeat(40_000), ...keep });
      assert.deepEqual(await s.idempotency.get(scope, "t1/a"), { n: 3 });
      assert.equal(await s.idempotency.get(scope, "t1/b"), "big".repeat(40_000));
      await s.idempotency.put(scope, "t2/a", { value: 1, ...keep });
      await s.idempotency.remove(scope, ["t2/a", "t2/absent"]);
      assert.equal(await s.idempotency.get(scope, "t2/a"), null, "remove() forgets the keys named");
      assert.deepEqual(await s.idempotency.get(scope, "t1/a"), { n: 3 }, "and only those");
      await s.idempotency.clear(scope);
      assert.equal(await s.idempotency.get(scope, "t1/a"), null, "clear() forgets them too");
      assert.equal(await s.idempotency.get(scope, "t1/b"), null);
    },
  );

  cases.add("IdempotencyStore keeps scopes apart", async (s) => {
    const a = scopeName();
    const b = scopeName();
    await s.idempotency.claim(a, "same-key", { value: "from a" });
    assert.equal(await s.idempotency.get(b, "same-key"), null);
    assert.deepEqual(await s.idempotency.claim(b, "same-key", { value: "from b" }), {
      created: true,
      value: "from b",
    });
    await s.idempotency.put(b, "same-key", { value: "b again" });
    assert.equal(await s.idempotency.get(a, "same-key"), "from a");
  });
}
