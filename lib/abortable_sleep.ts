/** @module The timer behind `Deps.sleep`: waits, or stops waiting when a signal aborts. */

/**
 * Resolves after `ms` milliseconds, or as soon as `signal` aborts (never rejects), clearing its
 * timer either way so nothing is left pending.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
