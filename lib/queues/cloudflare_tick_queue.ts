/**
 * @module Cloudflare Queues as the tick queue. The producer binding (`TICK_QUEUE` in
 * `wrangler.toml`) sends; the Worker's `queue()` handler consumes, one message per invocation, so
 * every step gets its own subrequest budget (50 on the free plan, 10,000 on the paid plan).
 */
import type { TickMessage, TickQueue } from "../../src/ports/mod.ts";

/** The part of a Queue producer binding we use (workers-types is not loaded under Deno). */
export interface QueueProducer {
  sendBatch(messages: { body: unknown; delaySeconds?: number }[]): Promise<unknown>;
}

/** Cloudflare accepts up to 100 messages per `sendBatch`. */
const BATCH = 100;
/** Cloudflare's longest message delay: 12 hours. */
const MAX_DELAY_SECONDS = 43_200;

/** A {@linkcode TickQueue} on a Cloudflare Queue producer binding. */
export class CloudflareTickQueue implements TickQueue {
  readonly #producer: QueueProducer;

  constructor(producer: QueueProducer) {
    this.#producer = producer;
  }

  async send(messages: readonly TickMessage[], options: { delayMs?: number } = {}): Promise<void> {
    const delaySeconds = Math.min(MAX_DELAY_SECONDS, Math.ceil((options.delayMs ?? 0) / 1000));
    for (let i = 0; i < messages.length; i += BATCH) {
      await this.#producer.sendBatch(
        messages.slice(i, i + BATCH).map((body) =>
          delaySeconds > 0 ? { body, delaySeconds } : { body }
        ),
      );
    }
  }

  now(): number {
    return Date.now();
  }
}

/** Whether a binding looks like a Queue producer. */
export function isQueueProducer(value: unknown): value is QueueProducer {
  return typeof (value as QueueProducer | undefined)?.sendBatch === "function";
}
