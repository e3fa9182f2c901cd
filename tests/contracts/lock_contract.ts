/** @module Contract cases every Lock adapter must pass. */
import assert from "node:assert/strict";
import { ConflictError, LeaseLostError } from "../../src/domain/errors.ts";
import { type ContractCases, delay, makeMemory, newScope, suffix } from "./_contract_support.ts";

/** Long enough that no case waits for it. */
const LONG_TTL = 30_000;
/** Short enough to wait for; cases wait well past it. */
// Real time: leases expire in the real store, so the expiry cases `delay` past SHORT_TTL.
const SHORT_TTL = 200;

function lockKey(): string {
  return `agent-step:${suffix()}`;
}

/** Registers the Lock cases. */
export function lockContract(cases: ContractCases): void {
  cases.add("Lock.acquire() grants a free key and refuses it while held", async (s) => {
    const key = lockKey();
    const lease = await s.locks.acquire(key, LONG_TTL);
    assert.ok(lease !== null);
    assert.equal(lease.key, key);
    assert.equal(typeof lease.token, "string");
    assert.ok(lease.token.length > 0);
    assert.equal(await s.locks.acquire(key, LONG_TTL), null);
    assert.equal(await s.locks.acquire(key, LONG_TTL), null);
    assert.equal(await s.locks.release(lease), true);
  });

  cases.add("Lock.acquire() grants exactly one of 10 concurrent callers", async (s) => {
    const key = lockKey();
    const leases = await Promise.all(
      Array.from({ length: 10 }, () => s.locks.acquire(key, LONG_TTL)),
    );
    const held = leases.filter((l) => l !== null);
    assert.equal(held.length, 1);
    assert.equal(await s.locks.release(held[0]!), true);
  });

  cases.add("Lock.release() frees the key for the next caller", async (s) => {
    const key = lockKey();
    const first = await s.locks.acquire(key, LONG_TTL);
    assert.ok(first);
    assert.equal(await s.locks.release(first), true);
    assert.equal(await s.locks.release(first), false, "A second release is a no-op");
    const second = await s.locks.acquire(key, LONG_TTL);
    assert.ok(second);
    assert.notEqual(second.token, first.token, "Each lease gets its own token");
    assert.equal(await s.locks.release(first), false, "An old lease cannot free a new holder");
    assert.equal(await s.locks.acquire(key, LONG_TTL), null);
    assert.equal(await s.locks.release(second), true);
  });

  cases.add("Lock.release() by a non-holder returns false and keeps the lock", async (s) => {
    const key = lockKey();
    const lease = await s.locks.acquire(key, LONG_TTL);
    assert.ok(lease);
    assert.equal(await s.locks.release({ key, token: "not-the-token" }), false);
    assert.equal(await s.locks.release({ key: lockKey(), token: lease.token }), false);
    assert.equal(await s.locks.acquire(key, LONG_TTL), null, "Still held");
    assert.equal(await s.locks.release(lease), true);
  });

  cases.add("Lock.acquire() takes over an expired lease", async (s) => {
    const key = lockKey();
    const crashed = await s.locks.acquire(key, SHORT_TTL);
    assert.ok(crashed);
    assert.equal(await s.locks.acquire(key, LONG_TTL), null);
    await delay(SHORT_TTL + 300);
    const next = await s.locks.acquire(key, LONG_TTL);
    assert.ok(next, "An expired lease no longer blocks");
    assert.equal(await s.locks.release(crashed), false, "The expired holder cannot release");
    assert.equal(await s.locks.acquire(key, LONG_TTL), null, "The new holder keeps the lock");
    assert.equal(await s.locks.release(next), true);
  });

  cases.add("Lock.release() of an expired lease returns false", async (s) => {
    const key = lockKey();
    const lease = await s.locks.acquire(key, SHORT_TTL);
    assert.ok(lease);
    await delay(SHORT_TTL + 300);
    assert.equal(await s.locks.release(lease), false);
    const next = await s.locks.acquire(key, LONG_TTL);
    assert.ok(next);
    assert.equal(await s.locks.release(next), true);
  });

  cases.add("Lock keeps different keys independent", async (s) => {
    const a = await s.locks.acquire(lockKey(), LONG_TTL);
    const b = await s.locks.acquire(lockKey(), LONG_TTL);
    assert.ok(a && b);
    assert.equal(await s.locks.release(a), true);
    assert.equal(await s.locks.release(b), true);
  });

  cases.add("Lock.renew() keeps a lease alive past its first TTL", async (s) => {
    const key = lockKey();
    // Generous against a loaded machine (an 800 ms TTL once lapsed before its first renewal
    // under CI load): renew at a quarter of the TTL, for two TTLs.
    const ttl = 2_000;
    const lease = await s.locks.acquire(key, ttl);
    assert.ok(lease);
    for (let i = 0; i < 8; i++) {
      await delay(ttl / 4);
      assert.equal(await s.locks.renew(lease, ttl), true, `renewal ${i}`);
    }
    assert.equal(await s.locks.acquire(key, LONG_TTL), null, "Still held after 2 TTLs");
    assert.equal(await s.locks.release(lease), true);
  });

  cases.add("Lock.renew() refuses a lease that expired or was taken over", async (s) => {
    const key = lockKey();
    const lease = await s.locks.acquire(key, SHORT_TTL);
    assert.ok(lease);
    await delay(SHORT_TTL + 300);
    assert.equal(await s.locks.renew(lease, LONG_TTL), false, "Expired: not renewed");
    const next = await s.locks.acquire(key, LONG_TTL);
    assert.ok(next);
    assert.equal(await s.locks.renew(lease, LONG_TTL), false, "Taken over: not renewed");
    assert.equal(await s.locks.renew({ key, token: "not-the-token" }, LONG_TTL), false);
    assert.equal(await s.locks.acquire(key, LONG_TTL), null, "The new holder keeps it");
    assert.equal(await s.locks.renew(next, LONG_TTL), true);
    assert.equal(await s.locks.release(next), true);
  });

  cases.add(
    "DocumentStore.replace() with a fence writes only while the lease is held",
    async (s) => {
      const key = lockKey();
      const doc = { collection: "fenced", scope: suffix(), id: "d" };
      await s.documents.create(doc, { n: 0 });
      const lease = await s.locks.acquire(key, SHORT_TTL);
      assert.ok(lease);
      const held = await s.documents.replace(doc, { n: 1 }, { expectedVersion: 1, fence: lease });
      assert.equal(held?.version, 2);
      await delay(SHORT_TTL + 300);
      const next = await s.locks.acquire(key, LONG_TTL);
      assert.ok(next, "Taken over after expiry");
      await assert.rejects(
        s.documents.replace(doc, { n: 99 }, { expectedVersion: 2, fence: lease }),
        (e: unknown) => e instanceof LeaseLostError && e.code === "conflict",
      );
      assert.deepEqual((await s.documents.get(doc))?.value, { n: 1 }, "Nothing written");
      assert.equal(
        (await s.documents.replace(doc, { n: 2 }, { expectedVersion: 2, fence: next }))?.version,
        3,
      );
      assert.equal(
        await s.documents.replace(doc, { n: 3 }, { expectedVersion: 2, fence: next }),
        null,
        "A held fence still needs the expected version",
      );
      assert.equal(await s.locks.release(next), true);
    },
  );

  cases.add(
    "DocumentStore.create() with a fence creates only while the lease is held",
    async (s) => {
      const key = lockKey();
      const scope = suffix();
      const doc = (id: string) => ({ collection: "fenced", scope, id });
      const lease = await s.locks.acquire(key, SHORT_TTL);
      assert.ok(lease);
      assert.equal((await s.documents.create(doc("a"), { n: 1 }, { fence: lease })).version, 1);
      await assert.rejects(
        s.documents.create(doc("a"), { n: 2 }, { fence: lease }),
        (e: unknown) => e instanceof ConflictError && !(e instanceof LeaseLostError),
        "An existing document is a conflict, not a lost lease",
      );
      await delay(SHORT_TTL + 300);
      const next = await s.locks.acquire(key, LONG_TTL);
      assert.ok(next, "Taken over after expiry");
      await assert.rejects(
        s.documents.create(doc("b"), { n: 1 }, { fence: lease }),
        (e: unknown) => e instanceof LeaseLostError && e.code === "conflict",
      );
      assert.equal(await s.documents.get(doc("b")), null, "Nothing written");
      assert.equal((await s.documents.create(doc("b"), { n: 2 }, { fence: next })).version, 1);
      assert.equal(await s.locks.release(next), true);
    },
  );

  cases.add("DocumentStore.replace() with a fence survives the holder renewing it", async (s) => {
    const key = lockKey();
    const doc = { collection: "fenced", scope: suffix(), id: "r" };
    await s.documents.create(doc, { n: 0 });
    const lease = await s.locks.acquire(key, LONG_TTL);
    assert.ok(lease);
    let version = 1;
    await Promise.all([
      (async () => {
        for (let i = 0; i < 20; i++) await s.locks.renew(lease, LONG_TTL);
      })(),
      (async () => {
        for (let i = 0; i < 20; i++) {
          const written = await s.documents.replace(doc, { n: i }, {
            expectedVersion: version,
            fence: lease,
          });
          assert.ok(written, `write ${i}`);
          version = written.version;
        }
      })(),
    ]);
    assert.equal(version, 21);
    assert.equal(await s.locks.release(lease), true);
  });

  cases.add("MemoryStore.append() with a fence writes only while the lease is held", async (s) => {
    const key = lockKey();
    const scope = newScope();
    const lease = await s.locks.acquire(key, SHORT_TTL);
    assert.ok(lease);
    await s.memories.append(scope, [makeMemory(scope, "m1")], { fence: lease });
    await delay(SHORT_TTL + 300);
    const next = await s.locks.acquire(key, LONG_TTL);
    assert.ok(next);
    await assert.rejects(
      s.memories.append(scope, [makeMemory(scope, "m2")], { fence: lease }),
      (e: unknown) => e instanceof LeaseLostError,
    );
    assert.deepEqual((await s.memories.all(scope)).map((m) => m.id), ["m1"], "Nothing written");
    await s.memories.append(scope, [makeMemory(scope, "m3")], { fence: next });
    assert.equal(await s.memories.count(scope), 2);
    assert.equal(await s.locks.release(next), true);
  });
}
