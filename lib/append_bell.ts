/**
 * @module Wakes in-process readers of a world's event log when this process appends to it, so
 * a live feed waits on a promise instead of polling storage. Shared by both EventLog adapters.
 */

/** Options of {@linkcode AppendBell.wait}. */
export interface BellWaitOptions {
  /** Resolve after this long even without an append (appends made by other processes). */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Per world: the last seq appended in this process, and who waits for a later one. */
export class AppendBell {
  readonly #last = new Map<string, number>();
  readonly #answered = new Map<string, string>();
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Called by an adapter after its append committed, with the last seq it wrote. */
  ring(worldId: string, lastSeq: number): void {
    if (lastSeq > (this.#last.get(worldId) ?? 0)) this.#last.set(worldId, lastSeq);
    const waiters = this.#waiters.get(worldId);
    if (!waiters) return;
    this.#waiters.delete(worldId);
    for (const wake of waiters) wake();
  }

  /** Forgets a world's last seq: its log was removed and numbering starts again at 1. */
  reset(worldId: string): void {
    this.#last.delete(worldId);
    this.#answered.delete(worldId);
  }

  /**
   * Resolves when this process appends an event with seq > `after` to the world (at once if it
   * already has), after `timeoutMs`, or when `signal` aborts; whichever comes first.
   */
  wait(worldId: string, after: number, options: BellWaitOptions): Promise<void> {
    if (options.signal?.aborted) return Promise.resolve();
    const last = this.#last.get(worldId) ?? 0;
    // "Already past" is answered once per (after, last): asked again with nothing appended since,
    // the caller read and found nothing (events removed meanwhile), so it waits instead of spinning.
    if (last > after && this.#answered.get(worldId) !== `${after}:${last}`) {
      this.#answered.set(worldId, `${after}:${last}`);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", done);
        this.#waiters.get(worldId)?.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, options.timeoutMs));
      options.signal?.addEventListener("abort", done, { once: true });
      let waiters = this.#waiters.get(worldId);
      if (!waiters) this.#waiters.set(worldId, waiters = new Set());
      waiters.add(done);
    });
  }
}
