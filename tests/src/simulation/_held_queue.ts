/** @module A tick queue for tests that keeps what is sent, so a test delivers it itself. */
import type { TickMessage, TickQueue } from "../../../src/ports/tick_queue.ts";

/** A queue that keeps what is sent, so a test delivers it (twice, late, or not at all). */
export class HeldQueue implements TickQueue {
  sent: { message: TickMessage; delayMs: number }[] = [];
  clock = 1_000_000;
  send(messages: readonly TickMessage[], options: { delayMs?: number } = {}): Promise<void> {
    for (const message of messages) this.sent.push({ message, delayMs: options.delayMs ?? 0 });
    return Promise.resolve();
  }
  now(): number {
    return this.clock;
  }
  take(kind: TickMessage["kind"]): TickMessage[] {
    const taken = this.sent.filter((s) => s.message.kind === kind).map((s) => s.message);
    this.sent = this.sent.filter((s) => s.message.kind !== kind);
    return taken;
  }
}
