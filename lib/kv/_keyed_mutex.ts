/** @module An in-process mutex per key: one writer at a time per agent or world. */

/**
 * Runs async sections one at a time per key, in call order. In-process only: the embedded
 * backend is single-process by design, and KV atomic checks catch any second process.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier section of `key` has finished; returns its result. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => release = resolve);
    const tail = previous.then(() => done);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
