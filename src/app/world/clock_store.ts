/**
 * @module The world's clock as the tick engine moves it: a compare-and-set of the game time, and
 * the engine's clock port for worlds.
 */
import { type Deps, updateDocument } from "../../ports/mod.ts";
import {
  type Clock,
  ConflictError,
  type World,
  type WorldId,
  worldNotFound,
} from "../../domain/mod.ts";
import { type ClockMove, type TickClock } from "../engine/mod.ts";
import { loadWorldDoc, worldKey } from "./world_store.ts";

/** Tries of a clock move that lost only to a change of name, pause or settings. */
const ATTEMPTS = 8;

/**
 * Moves the clock from `from` to `to` with a compare-and-set on the world document. A write
 * that lost only to a change of name, pause or settings is retried on the fresh document; the
 * clock itself must still read `from`.
 * @returns the clock after the move.
 * @throws `world_not_found`; `conflict` when the clock no longer reads `from` (another tick
 * moved it) or writes keep winning.
 */
export async function advanceClock(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  move: ClockMove,
): Promise<Clock> {
  const { from, to } = move;
  const world = await updateDocument<World>(deps.storage.documents, worldKey(worldId), {
    change: (current) => {
      if (current === null) throw worldNotFound(worldId);
      if (current.clock.now !== from) {
        throw new ConflictError(
          `Cannot advance the clock of world "${worldId}" from "${from}": it reads "${current.clock.now}" now, another tick moved it`,
        );
      }
      return { ...current, clock: { ...current.clock, now: to } };
    },
    attempts: ATTEMPTS,
    read: await loadWorldDoc(deps, worldId),
    create: false,
    fence: move.fence,
    conflict:
      `Cannot advance the clock of world "${worldId}": other writes kept changing it, retry the tick`,
  });
  return world!.clock;
}
/** The engine's clock port for worlds: reads the world document and moves its clock. */
export const worldTickClock: TickClock<World> = {
  load: async (deps, id) => (await loadWorldDoc(deps, id as WorldId)).value,
  advance: (deps, id, move) => advanceClock(deps, id as WorldId, move),
};
