import assert from "node:assert/strict";
import { KvTickQueue } from "../../lib/queues/kv_tick_queue.ts";
import type { TickMessage } from "../../src/ports/tick_queue.ts";

function close(tickId: string): TickMessage {
  return { kind: "close", worldId: "w", tickId };
}

Deno.test("KvTickQueue.stop() lets a message being handled finish and send before its KV closes; one delivered after it is not handled", async () => {
  const kv = await Deno.openKv(":memory:");
  const queue = new KvTickQueue(kv);
  let entered!: () => void;
  const inHandler = new Promise<void>((resolve) => entered = resolve);
  let proceed!: () => void;
  const go = new Promise<void>((resolve) => proceed = resolve);
  const handled: string[] = [];
  const errors: unknown[] = [];
  const listening = queue.listen(async (m) => {
    handled.push(m.tickId);
    if (m.tickId !== "first") return;
    entered();
    await go;
    // Before the fix the KV closed under this send: "Bad resource ID".
    await queue.send([close("sent while stopping")]).catch((e) => errors.push(e));
  });
  await queue.send([close("first")]);
  await inHandler;
  let stopped = false;
  const stopping = queue.stop().then(() => stopped = true);
  // Real time: "not stopped yet" and "not delivered" have no event to wait on.
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(stopped, false, "stop() waits for the message being handled");
  proceed();
  await stopping;
  await new Promise((resolve) => setTimeout(resolve, 200)); // time to deliver the one sent
  kv.close();
  await listening;
  assert.deepEqual(errors, []);
  assert.deepEqual(handled, ["first"]);
});
