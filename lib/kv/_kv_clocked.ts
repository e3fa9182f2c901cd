/** @module What the embedded stores that read the wall clock are built from. */

/** An open Deno KV and the wall clock a store reads. */
export interface KvClockedOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
  /** Wall clock in ms; injectable for tests. @default Date.now */
  now?: () => number;
}

/** The KV and clock of the embedded audit log, lock and rate limiter, set up the same way. */
export abstract class KvClocked {
  protected readonly kv: Deno.Kv;
  protected readonly now: () => number;

  constructor(options: KvClockedOptions) {
    this.kv = options.kv;
    this.now = options.now ?? Date.now;
  }
}
