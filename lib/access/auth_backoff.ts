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

/** The attempts from one address this process has under way. */
interface Held {
  /** Attempts being decided or holding a slot (not waiting). */
  active: number;
  /** Refused attempts waiting for a slot to be handed over, longest first. */
  waiters: ((handed: boolean) => void)[];
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
   * while this process has other attempts from the address under way (being decided, or holding
   * a slot) waits for one of them to turn out right (its slot comes back) and tries again, so a
   * client sending more right keys at once than the minute's failures allow is slowed, not
   * refused, whatever order the windows' answers come back in; a guesser's slots never come back,
   * so it is refused once its attempts under way are checked.
   * @throws `store_unavailable` when the store fails.
   */
  async admit(address: string): Promise<Admission> {
    const id = `authfail:${address}`;
    const held = this.#enter(address);
    for (let wait = 0;; wait++) {
      let decisions;
      try {
        // Counted in every window, or in none.
        decisions = await this.#limits.limitAll(id, AUTH_FAILURE_WINDOWS);
      } catch (error) {
        this.#leave(address, false);
        throw error;
      }
      if (decisions.every((d) => d.success)) return { slot: this.#slot(address, id) };
      if (wait < MAX_WAITS && held.active > 1) {
        if (await this.#handedOver(address)) continue;
      } else {
        this.#leave(address, false);
      }
      return {
        blockedUntil: Math.max(...decisions.filter((d) => !d.success).map((d) => d.reset)),
      };
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

  #enter(address: string): Held {
    const held = this.#held.get(address) ?? { active: 0, waiters: [] };
    held.active++;
    this.#held.set(address, held);
    return held;
  }

  /**
   * One attempt from `address` is done. A slot given back goes to the longest waiter, which then
   * counts as under way; once no attempt is under way, every waiter is refused (the slots were
   * failures).
   */
  #leave(address: string, freed: boolean): void {
    const held = this.#held.get(address);
    if (!held) return;
    const next = freed ? held.waiters.shift() : undefined;
    if (next) return next(true); // the waiter takes this attempt's place among the active
    held.active--;
    if (held.active > 0) return;
    this.#held.delete(address);
    for (const wake of held.waiters.splice(0)) wake(false);
  }

  /**
   * Waits, no longer under way, for a slot to be handed over: true with the slot's place among
   * the active, false when every other attempt ended without giving one back.
   */
  #handedOver(address: string): Promise<boolean> {
    const held = this.#held.get(address)!; // under way, so present
    held.active--;
    return new Promise((resolve) => held.waiters.push(resolve));
  }
}
