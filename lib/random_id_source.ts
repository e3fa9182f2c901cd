/** @module Ids that sort by creation time, for records listed in order. */
import type { IdSource } from "../src/domain/mod.ts";

/**
 * Mints `<prefix>_<time><counter><random>` ids: URL-safe, fixed width after the prefix, and
 * increasing within a process even when the clock stands still or steps back.
 */
export class RandomIdSource implements IdSource {
  #lastMs = 0;
  #counter = 0;
  readonly #now: () => number;

  /** @param now the wall clock, injectable for tests. @default Date.now */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  next(prefix: string): string {
    const ms = Math.max(this.#now(), this.#lastMs);
    this.#counter = ms === this.#lastMs ? this.#counter + 1 : 0;
    this.#lastMs = ms;
    const random = crypto.getRandomValues(new Uint8Array(4));
    const tail = Array.from(random, (b) => (b % 36).toString(36)).join("");
    return `${prefix}_${ms.toString(36).padStart(9, "0")}${
      this.#counter.toString(36).padStart(4, "0")
    }${tail}`;
  }
}
