/**
 * @module Time the test moves by hand: a `Deps.sleep` and a wall clock that only advance when
 * the test says so, and event waits for "the code under test is now sleeping".
 */

interface Timer {
  at: number;
  wake: () => void;
}

/** A manual clock: `sleep` waits until {@linkcode FakeClock.advance} passes its deadline. */
export class FakeClock {
  #now: number;
  #timers: Timer[] = [];
  #watchers: { count: number; wake: () => void }[] = [];

  constructor(start = 0) {
    this.#now = start;
  }

  /** The wall clock in ms, for stores that take a `now`. */
  readonly now = (): number => this.#now;

  /** A `Deps.sleep`: resolves when the clock reaches `now + ms`, or at once when `signal` aborts. */
  readonly sleep = (ms: number, signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer: Timer = {
        at: this.#now + ms,
        wake: () => {
          this.#timers = this.#timers.filter((t) => t !== timer);
          signal?.removeEventListener("abort", timer.wake);
          resolve();
        },
      };
      signal?.addEventListener("abort", timer.wake, { once: true });
      this.#timers = [...this.#timers, timer];
      this.#notify();
    });
  };

  /** How many sleeps are pending. */
  get pending(): number {
    return this.#timers.length;
  }

  /** Resolves once at least `count` sleeps are pending: the code under test is waiting. */
  sleeping(count = 1): Promise<void> {
    if (this.#timers.length >= count) return Promise.resolve();
    return new Promise((wake) => this.#watchers = [...this.#watchers, { count, wake }]);
  }

  /** Moves the clock `ms` forward, waking every sleep due by then, earliest first. */
  advance(ms: number): void {
    const until = this.#now + ms;
    const due = this.#timers.filter((t) => t.at <= until).sort((a, b) => a.at - b.at);
    for (const timer of due) {
      this.#now = timer.at;
      timer.wake();
    }
    this.#now = until;
  }

  #notify(): void {
    const ready = this.#watchers.filter((w) => this.#timers.length >= w.count);
    this.#watchers = this.#watchers.filter((w) => !ready.includes(w));
    for (const w of ready) w.wake();
  }
}

/** A gate the test opens: work awaits `opened`; `entered` resolves when work reached it. */
export function gate(): { opened: () => Promise<void>; entered: Promise<void>; open: () => void } {
  const entry = Promise.withResolvers<void>();
  const door = Promise.withResolvers<void>();
  return {
    opened: () => (entry.resolve(), door.promise),
    entered: entry.promise,
    open: () => door.resolve(),
  };
}

/**
 * `sleep` that also reports its first call: the code under test has started waiting (for a
 * busy lease, say).
 */
export function observedSleep(
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
): { sleep: (ms: number, signal?: AbortSignal) => Promise<void>; slept: Promise<void> } {
  const first = Promise.withResolvers<void>();
  return {
    slept: first.promise,
    sleep: (ms, signal) => (first.resolve(), sleep(ms, signal)),
  };
}
