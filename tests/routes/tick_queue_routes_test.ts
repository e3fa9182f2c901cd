import assert from "node:assert/strict";
import { createApp } from "../../routes/app.ts";
import { silentLogger } from "../../lib/logger.ts";
import { KvTickQueue } from "../../lib/queues/kv_tick_queue.ts";
import type { TickMessage } from "../../src/ports/tick_queue.ts";
import { consumeTickMessage } from "../../src/app/simulation/tick_world.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";
import { makeTown } from "../src/domain/_town_fixture.ts";

async function call(app: ReturnType<typeof createApp>, method: string, path: string) {
  const res = await app.request(path, { method });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

Deno.test("POST …/tick?wait=false answers 202 with the tick id; GET …/ticks/{id} reads it running, then done; another tick id meanwhile is 409 at once with Retry-After", async () => {
  await using deps = await makeTestDeps();
  const kv = await Deno.openKv(":memory:");
  const queue = new KvTickQueue(kv);
  // Messages wait until the test releases them, so the tick is seen running.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  // Each handled message wakes the test, which reads the tick again only then.
  let handled = 0;
  let wake = () => {};
  const listening = queue.listen(async (m: TickMessage) => {
    await gate;
    await consumeTickMessage(deps, m, queue);
    handled++;
    wake();
  });
  const afterHandled = (seen: number) =>
    handled > seen ? Promise.resolve() : new Promise<void>((resolve) => wake = resolve);
  try {
    const id = await makeTown(deps);
    const app = createApp(deps, { logger: silentLogger, tickQueue: queue });
    const started = await call(app, "POST", `/v1/worlds/${id}/tick?wait=false`);
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const tickId = started.body.tickId;
    assert.deepEqual(started.body, { tickId, status: "running" });
    assert.deepEqual((await call(app, "GET", `/v1/worlds/${id}/ticks/${tickId}`)).body, {
      tickId,
      status: "running",
    });

    const t0 = performance.now();
    const busy = await call(app, "POST", `/v1/worlds/${id}/tick`);
    assert.equal(busy.status, 409);
    assert.equal(busy.body.error.code, "conflict");
    assert.ok(Number(busy.headers.get("retry-after")) > 0, "Retry-After says when to come back");
    assert.ok(performance.now() - t0 < 3_000, "answered at once");

    release();
    let read;
    for (let seen = handled;; seen = handled) {
      read = await call(app, "GET", `/v1/worlds/${id}/ticks/${tickId}`);
      if (read.body.status === "done") break;
      await afterHandled(seen);
    }
    assert.equal(read.status, 200);
    assert.equal(read.body.status, "done");
    assert.equal(read.body.result.steps.length, 3);
    assert.equal(read.body.result.clock.now, "2023-02-13T07:00:00");
    // The default still waits for the close and answers the result.
    const waited = await call(app, "POST", `/v1/worlds/${id}/tick`);
    assert.equal(waited.status, 200);
    assert.equal(waited.body.clock.now, "2023-02-13T07:10:00");

    const unknown = await call(app, "GET", `/v1/worlds/${id}/ticks/nope`);
    assert.equal(unknown.status, 404);
    assert.equal((await call(app, "GET", `/v1/worlds/missing/ticks/nope`)).status, 404);
  } finally {
    release();
    await queue.stop();
    kv.close();
    await listening.catch(() => {});
  }
});
