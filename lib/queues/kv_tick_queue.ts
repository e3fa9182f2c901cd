/**
 * @module Deno KV queues as the tick queue: `enqueue` to send, `listenQueue` to consume. Embedded,
 * they run in process from a local KV file (messages survive a restart); on Deno Deploy the same
 * calls run distributed across isolates.
 */
import { type TickMessage, TickMessageSchema, type TickQueue } from "../../src/ports/mod.ts";

/** How often Deno KV redelivers a message whose handler threw (a store outage). */
const REDELIVERY_MS = [1_000, 5_000, 15_000, 30_000];

/** Deno KV's limit on mutations in one atomic commit is generous; enqueues go in tens. */
const BATCH = 10;

/**
 * A {@linkcode TickQueue} on a Deno KV handle, which the caller owns. To shut down, `stop()`
 * before closing the KV: a handler still running when its KV closes fails on its next enqueue
 * ("Exception in queue handler BadResource: Bad resource ID").
 */
export class KvTickQueue implements TickQueue {
  readonly #kv: Deno.Kv;
  readonly #handling = new Set<Promise<void>>();
  #stopped = false;

  constructor(kv: Deno.Kv) {
    this.#kv = kv;
  }

  async send(messages: readonly TickMessage[], options: { delayMs?: number } = {}): Promise<void> {
    for (let i = 0; i < messages.length; i += BATCH) {
      const op = this.#kv.atomic();
      for (const m of messages.slice(i, i + BATCH)) {
        op.enqueue(m, { delay: options.delayMs ?? 0, backoffSchedule: REDELIVERY_MS });
      }
      const committed = await op.commit();
      if (!committed.ok) throw new Error("Cannot enqueue tick messages: the KV commit failed");
    }
  }

  now(): number {
    return Date.now();
  }

  /**
   * Delivers every tick message to `handler` until the KV closes. A handler that throws has its
   * message redelivered with back-off; values that are not tick messages are dropped.
   */
  listen(handler: (message: TickMessage) => Promise<void>): Promise<void> {
    return this.#kv.listenQueue((value: unknown) => {
      // Left unanswered once stopped: the KV keeps it for the next start, as after a crash.
      if (this.#stopped) return new Promise<void>(() => {});
      const parsed = TickMessageSchema.safeParse(value);
      if (!parsed.success) return;
      const handled = handler(parsed.data);
      this.#handling.add(handled);
      return handled.finally(() => this.#handling.delete(handled));
    });
  }

  /**
   * Stops handling messages and resolves once those being handled are done (they may still
   * send); the KV can close after it. Messages delivered meanwhile are left to the next start.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    await Promise.allSettled([...this.#handling]);
  }
}
