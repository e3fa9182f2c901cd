/**
 * @module Port: the platform's own message queue (Deno KV queues, Cloudflare Queues) that carries
 * a tick's steps to their own invocations. We never run a queue of our own: delivery, retries of
 * lost deliveries and delays are the platform's; the engine makes every message safe to repeat.
 */

/** A message of a tick: step one group of units, or close the tick (all reported or too late). */
export type TickMessage =
  | { kind: "step"; worldId: string; tickId: string; group: number; attempt: number }
  | { kind: "close"; worldId: string; tickId: string };

/** Sends tick messages; the entry point (`main.ts`, `worker.ts`) delivers them to the engine. */
export interface TickQueue {
  /** Enqueues messages, each delivered at least once, not before `delayMs` from now. */
  send(messages: readonly TickMessage[], options?: { delayMs?: number }): Promise<void>;
  /** Wall-clock milliseconds since the epoch, for tick deadlines. */
  now(): number;
}
