/**
 * @module Failed authentications per client address: ten a minute, thirty an hour, a hundred a
 * day. Past any of them the address gets 429 until that window slides on, so the wait grows
 * with persistence (a minute, then an hour, then a day) while a typo costs nothing.
 *
 * Every attempt takes a slot in the windows before its key is looked at (increment, then check:
 * counted in all three or in none, RateLimiter.limitAll), and a right key gives it back at once. So
 * however many guesses arrive together, on however many instances, no more keys are checked
 * than the windows allow; counting after the check let a burst of 400 wrong keys get 71
 * checked instead of 10.
 */
import type { RateLimiter, RateWindow } from "../../src/ports/mod.ts";

/** The windows, smallest first. */
export const AUTH_FAILURE_WINDOWS: readonly RateWindow[] = [
  { requests: 10, windowMs: 60_000 },
  { requests: 30, windowMs: 3_600_000 },
  { requests: 100, windowMs: 86_400_000 },
];

/** Most times a refused attempt waits for a slot this process holds for the address. */
const MAX_WAITS = 8;

/** A slot taken for one authentication attempt. */
export interface AuthSlot {
  /** The key was right: the slot is given back (a refund in each window). */
  release(): Promise<void>;
  /** The key was wrong: the slot stays counted as a failure. */
  keep(): void;
}

/** The outcome of {@linkcode AuthBackoff.admit}: a slot, or when to come back. */
export type Admission = { slot: AuthSlot } | { blockedUntil: number };

/** Waiters for the slots one address holds in this process. */
interface Held {
  count: number;
  waiters: ((freed: boolean) => void)[];
}

/** The failed-auth back-off over the store's rate limits. */
export class AuthBackoff {
  readonly #limits: RateLimiter;
  readonly #held = new Map<string, Held>();

  constructor(limits: RateLimiter) {
    this.#limits = limits;
  }

  /**
   * A slot for one attempt from `address`, or the time its windows free up. An attempt refused
   * while this process still checks other attempts from the address waits for one of them to
   * turn out right (its slot comes back) and tries again, so a client sending more right keys at
   * once than the minute's failures allow is slowed, not refused; a guesser's slots never come
   * back, so it is refused once its attempts under way are checked.
   * @throws `store_unavailable` when the store fails.
   */
  async admit(address: string): Promise<Admission> {
    const id = `authfail:${address}`;
    let handedOver = false; // holding a slot given back by another attempt (counted in #held)
    for (let wait = 0;; wait++) {
      // Counted in every window, or in none.
      const decisions = await this.#limits.limitAll(id, AUTH_FAILURE_WINDOWS);
      if (decisions.every((d) => d.success)) {
        if (!handedOver) this.#enter(address);
        return { slot: this.#slot(address, id) };
      }
      if (handedOver) this.#leave(address, false); // another instance took the slot
      handedOver = wait < MAX_WAITS && await this.#slotFreed(address);
      if (!handedOver) {
        return {
          blockedUntil: Math.max(...decisions.filter((d) => !d.success).map((d) => d.reset)),
        };
      }
    }
  }

  #slot(address: string, id: string): AuthSlot {
    let settled = false;
    return {
      release: async () => {
        if (settled) return;
        settled = true;
        try {
          await this.#limits.refund(id, AUTH_FAILURE_WINDOWS);
        } finally {
          this.#leave(address, true);
        }
      },
      keep: () => {
        if (settled) return;
        settled = true;
        this.#leave(address, false);
      },
    };
  }

  #enter(address: string): void {
    const held = this.#held.get(address) ?? { count: 0, waiters: [] };
    held.count++;
    this.#held.set(address, held);
  }

  /**
   * One attempt from `address` is done. A slot given back goes to the longest waiter, which then
   * counts as holding it; once no attempt is under way, every waiter is refused (the slots were
   * failures).
   */
  #leave(address: string, freed: boolean): void {
    const held = this.#held.get(address);
    if (!held) return;
    const next = freed ? held.waiters.shift() : undefined;
    if (next) return next(true);
    held.count--;
    if (held.count > 0) return;
    this.#held.delete(address);
    for (const wake of held.waiters.splice(0)) wake(false);
  }

  /** Waits for a slot this process holds for `address` to be handed over; false when none is. */
  #slotFreed(address: string): Promise<boolean> {
    const held = this.#held.get(address);
    if (!held) return Promise.resolve(false);
    return new Promise((resolve) => held.waiters.push(resolve));
  }
}
