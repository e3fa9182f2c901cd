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
 * How long a delivered message waits for the next before the messages gathered so far are
 * handled together, and the longest any waits. Deno KV hands messages over one by one as it
 * dequeues them (a tick's 25 steps over 100–600 ms here); steps started in one turn of the event
 * loop share the hosted store's pipelined requests (their reads and lease takes go out
 * together), where started apart each paid its own (issue 25).
 */
const GATHER_IDLE_MS = 40;
const GATHER_MAX_MS = 250;

/**
 * A {@linkcode TickQueue} on a Deno KV handle, which the caller owns. To shut down, `stop()`
 * before closing the KV: a handler still running when its KV closes fails on its next enqueue
 * ("Exception in queue handler BadResource: Bad resource ID").
 */
export class KvTickQueue implements TickQueue {
  readonly #kv: Deno.Kv;
  readonly #handling = new Set<Promise<void>>();
  /** Starts of messages delivered in the current gathering window. */
  #gathering: (() => void)[] = [];
  #idle: ReturnType<typeof setTimeout> | undefined;
  #cap: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  readonly #gather: boolean;

  /**
   * With `gather` (for the hosted store, whose requests pipeline), delivered messages wait a
   * little for one another and are handled together (see {@linkcode GATHER_IDLE_MS}); the
   * embedded store gains nothing from it. @default false
   */
  constructor(kv: Deno.Kv, options: { gather?: boolean } = {}) {
    this.#kv = kv;
    this.#gather = options.gather ?? false;
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
      const handled = this.#gather
        ? this.#gathered().then(() => handler(parsed.data))
        : handler(parsed.data);
      this.#handling.add(handled);
      return handled.finally(() => this.#handling.delete(handled));
    });
  }

  /**
   * Resolves, with the other messages delivered meanwhile, once none has come for
   * {@linkcode GATHER_IDLE_MS} (or {@linkcode GATHER_MAX_MS} after the first): all in one turn.
   */
  #gathered(): Promise<void> {
    const start = Promise.withResolvers<void>();
    this.#gathering.push(start.resolve);
    const release = () => {
      clearTimeout(this.#idle);
      clearTimeout(this.#cap);
      this.#idle = this.#cap = undefined;
      const starts = this.#gathering;
      this.#gathering = [];
      for (const go of starts) go();
    };
    clearTimeout(this.#idle);
    this.#idle = setTimeout(release, GATHER_IDLE_MS);
    this.#cap ??= setTimeout(release, GATHER_MAX_MS);
    return start.promise;
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
