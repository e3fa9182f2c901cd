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
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Called by an adapter after its append committed, with the last seq it wrote. */
  ring(worldId: string, lastSeq: number): void {
    if (lastSeq > (this.#last.get(worldId) ?? 0)) this.#last.set(worldId, lastSeq);
    const waiters = this.#waiters.get(worldId);
    if (!waiters) return;
    this.#waiters.delete(worldId);
    for (const wake of waiters) wake();
  }

  /**
   * Resolves when this process appends an event with seq > `after` to the world (at once if it
   * already has), after `timeoutMs`, or when `signal` aborts; whichever comes first.
   */
  wait(worldId: string, after: number, options: BellWaitOptions): Promise<void> {
    if ((this.#last.get(worldId) ?? 0) > after || options.signal?.aborted) {
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
