/**
 * @module The engine's clock port: how the generic tick loop reads a world's clock and moves it.
 */
import type { Deps, FencedWrite } from "../../ports/mod.ts";
import { Clocked, ClockState, type GameTime } from "../../domain/mod.ts";

/** Reads and moves the clock of the thing being ticked. */
export interface TickClock<W extends Clocked> {
  /** The current state. @throws a not-found error when it does not exist. */
  load(deps: Pick<Deps, "storage">, id: string): Promise<W>;
  /**
   * Moves the clock from `move.from` to `move.to` by compare-and-set and returns the new clock;
   * with `move.fence`, only while the tick's lease is held.
   * @throws `conflict` when the clock no longer reads `from` or the fence was lost.
   */
  advance(deps: Pick<Deps, "storage">, id: string, move: ClockMove): Promise<ClockState>;
}
/** A move of a clock: from the time it was read, to the time after the tick. */
export interface ClockMove extends FencedWrite {
  from: GameTime;
  to: GameTime;
}
