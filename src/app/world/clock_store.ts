/** @module Reads and writes for clock: @module A world's clock and settings as they change: `PATCH` of name, tick length, pause and */
import { type Deps, updateDocument, type Versioned } from "../../ports/mod.ts";
import {
  type Clock,
  ConflictError,
  PauseReason,
  UpdateWorldInput,
  withDefaults,
  type World,
  type WorldId,
  worldNotFound,
  WorldSettings,
} from "../../domain/mod.ts";
import { type ClockMove, type TickClock } from "../engine/mod.ts";
import { worldKey } from "./world_store.ts";

const ATTEMPTS = 8;
/**
 * The world document with its version, for compare-and-set.
 * @throws `world_not_found`
 */
export async function loadWorldDoc(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<Versioned<World>> {
  const doc = await deps.storage.documents.get<World>(worldKey(worldId));
  if (!doc) throw worldNotFound(worldId);
  return { ...doc, value: withDefaults(doc.value) };
}
/** A change to a world as a request makes it, and why a pause flag it flips changed. */
export type WorldUpdate = UpdateWorldInput & { why?: PauseReason };

/**
 * Changes a world's name, tick length, clock mode, pause flag or settings (merged field by
 * field) with a version-checked replace, so it never undoes a tick that moved the clock
 * meanwhile. The game time itself only moves by ticks. A change of the pause flag is logged as
 * a `world.paused` or `world.resumed` event (`update.why` says by what; default: a request).
 * @throws `world_not_found`, `invalid_request` when the merged settings are invalid,
 * `conflict` when concurrent writes keep winning.
 */
export async function updateWorld(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  update: WorldUpdate,
): Promise<World> {
  const { why, ...input } = update;
  let wasPaused = false;
  const next = (await updateDocument<World>(deps.storage.documents, worldKey(worldId), {
    change: (raw) => {
      if (raw === null) throw worldNotFound(worldId);
      const current = withDefaults(raw);
      wasPaused = current.clock.paused;
      return {
        ...current,
        name: input.name ?? current.name,
        clock: {
          ...current.clock,
          minutesPerTick: input.minutesPerTick ?? current.clock.minutesPerTick,
          mode: input.clock?.mode ?? current.clock.mode,
          paused: input.clock?.paused ?? input.paused ?? current.clock.paused,
        },
        settings: WorldSettings.parse({ ...current.settings, ...input.settings }),
      };
    },
    attempts: ATTEMPTS,
    read: await loadWorldDoc(deps, worldId),
    create: false,
    conflict: `Cannot update world "${worldId}": other writes kept changing it, retry shortly`,
  }))!;
  if (next.clock.paused !== wasPaused) {
    await deps.storage.events.append(worldId, [{
      type: next.clock.paused ? "world.paused" : "world.resumed",
      at: next.clock.now,
      ...(why ?? {
        reason: "request",
        message: next.clock.paused
          ? "Paused by a request: the scheduler leaves it until it is resumed"
          : "Resumed by a request",
      }),
    }]);
  }
  return next;
}
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
