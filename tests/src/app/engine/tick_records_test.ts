import assert from "node:assert/strict";
import type { Deps } from "../../../../src/ports/deps.ts";
import { TICK_RECORD_TTL_MS } from "../../../../src/app/engine/tick_records.ts";
import { stepResults } from "../../../../src/app/engine/tick_store.ts";
import type { IdempotencyStore } from "../../../../src/ports/idempotency_store.ts";
import type { UnitOfWorkStore } from "../../../../src/ports/unit_of_work_store.ts";
import {
  consumeTickMessage,
  startTick,
  tickWorld,
} from "../../../../src/app/simulation/tick_world.ts";
import { makeTestDeps } from "../../../_helpers/test_deps.ts";
import { makeTown } from "../../domain/_town_fixture.ts";
import { HeldQueue } from "../../simulation/_held_queue.ts";

interface Kept {
  scope: string;
  key: string;
  ttlMs?: number;
}

/** Deps that record the time to live of every idempotency value stored. */
function recordingKeeps(deps: Deps): { deps: Deps; kept: Kept[] } {
  const kept: Kept[] = [];
  const inner = deps.storage.idempotency;
  const idempotency: IdempotencyStore = {
    claim(scope, key, write) {
      kept.push({ scope, key, ttlMs: write.ttlMs });
      return inner.claim(scope, key, write);
    },
    put(scope, key, write) {
      kept.push({ scope, key, ttlMs: write.ttlMs });
      return inner.put(scope, key, write);
    },
    putMany(scope, writes, keep) {
      for (const { key } of writes) kept.push({ scope, key, ttlMs: keep?.ttlMs });
      return inner.putMany(scope, writes, keep);
    },
    get: (scope, key) => inner.get(scope, key),
    remove: (scope, keys) => inner.remove(scope, keys),
    clear: (scope) => inner.clear(scope),
  };
  const units: UnitOfWorkStore = {
    begin: (request) => deps.storage.units.begin(request),
    commit(request) {
      const { claim } = request;
      if (claim) kept.push({ scope: claim.scope, key: claim.key, ttlMs: claim.ttlMs });
      return deps.storage.units.commit(request);
    },
  };
  const storage = new Proxy(deps.storage, {
    get(target, name) {
      if (name === "idempotency") return idempotency;
      if (name === "units") return units;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { deps: { ...deps, storage }, kept };
}

Deno.test("a queued tick's step results and pair decisions expire after a day; its marker is kept", async () => {
  await using base = await makeTestDeps();
  const id = await makeTown(base);
  await tickWorld(base, id, { tickId: "t0" }); // Eddy and John share a house: a pair decides
  const { deps, kept } = recordingKeeps(base);
  const queue = new HeldQueue();
  await startTick(deps, id, { tickId: "t1", queue });
  for (let pending = queue.take("step"); pending.length > 0; pending = queue.take("step")) {
    for (const m of pending) await consumeTickMessage(deps, m, queue);
  }
  const working = kept.filter((k) => k.scope === `tickstep:${id}` || k.key.endsWith(":pair"));
  const keys = working.map((k) => k.key);
  assert.ok(keys.includes("t1/eddy"), `a step's result, claimed in its commit: ${keys.join()}`);
  assert.ok(keys.includes("tick:t1:pair"), "the pair's decision");
  for (const k of working) assert.equal(k.ttlMs, TICK_RECORD_TTL_MS, k.key);
  const markers = kept.filter((k) => k.scope === `tick:${id}`);
  assert.ok(markers.length > 0);
  for (const k of markers) assert.equal(k.ttlMs, undefined, "a repeated tick id answers");
  assert.equal(await stepResults(deps, id, "t1").get("eddy"), null, "the close cleared them");
});
