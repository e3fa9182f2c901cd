/** @module Port: each world's append-only event log. */

/** An event to append: a type and any JSON fields. */
export interface NewEvent {
  type: string;
  at: string;
  agentId?: string;
  [field: string]: unknown;
}

/** A stored event with its sequence number (1, 2, 3… per world, gap-free). */
export interface LoggedEvent extends NewEvent {
  seq: number;
}

/** Append-only events per world. Throws `store_unavailable` when the backend fails. */
export interface EventLog {
  /** Appends events in order, all or none; returns them with their sequence numbers. */
  append(worldId: string, events: readonly NewEvent[]): Promise<LoggedEvent[]>;

  /** Events with `seq > after`, oldest first, at most `limit`. */
  read(worldId: string, after: number, limit: number): Promise<LoggedEvent[]>;

  /**
   * Resolves when this process appends an event with `seq > after` to the world (at once when it
   * already has), after `options.timeoutMs`, or when `options.signal` aborts — whichever comes
   * first. Costs no storage call: live feeds wait on it between reads instead of polling, and
   * re-read after it resolves (appends by other processes show up by the timeout).
   */
  waitForAppend(
    worldId: string,
    after: number,
    options: { timeoutMs: number; signal?: AbortSignal },
  ): Promise<void>;

  /** The newest event's seq (0 for an empty log). Never goes down, even after removals. */
  latest(worldId: string): Promise<number>;

  /**
   * Removes a world's events: all of them (its numbering too, so a world made again with the
   * same id starts at 1), or only those whose `agentId` is `options.agentId` (the others keep
   * their seq). Returns how many were removed.
   */
  remove(worldId: string, options?: { agentId?: string }): Promise<number>;
}
