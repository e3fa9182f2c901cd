/**
 * @module Worlds in storage: create, read, list, and change a world's name, tick length, mode,
 * pause and settings (Generative Agents §5).
 */
import {
  type Deps,
  type DocumentKey,
  requireDocument,
  updateDocument,
  type Versioned,
} from "../../ports/mod.ts";
import {
  ConflictError,
  CreateWorldInput,
  LeaseLostError,
  PauseReason,
  SimulacraError,
  UpdateWorldInput,
  withDefaults,
  World,
  WORLD_CREATION_TTL_MS,
  worldCreationKey,
  WorldId,
  worldNotFound,
  WorldSettings,
  worldTaken,
} from "../../domain/mod.ts";

/** The document key of a world; the clock's compare-and-set replaces this document. */
export function worldKey(id: string): DocumentKey {
  return { collection: "worlds", scope: "", id };
}
/**
 * Creates a world whose clock starts at `startTime`; `template` is not read here (see
 * `createWorldFromTemplate`).
 * @throws `conflict` when a world with that id exists or is being imported; `invalid_request`
 * without `startTime`.
 */
export async function createWorld(
  deps: Pick<Deps, "storage" | "ids">,
  input: CreateWorldInput,
): Promise<World> {
  const world = newWorld(deps, input);
  const lease = await deps.storage.locks.acquire(
    worldCreationKey(world.id),
    WORLD_CREATION_TTL_MS,
  );
  if (lease === null) {
    throw new ConflictError(
      `Cannot create world "${world.id}": a world with this id is being imported right now, pick another id`,
    );
  }
  try {
    await deps.storage.documents.create(worldKey(world.id), world, { fence: lease });
  } catch (err) {
    if (err instanceof ConflictError && !(err instanceof LeaseLostError)) {
      throw worldTaken(world.id);
    }
    throw err;
  } finally {
    await deps.storage.locks.release(lease).catch(() => false);
  }
  return world;
}
/**
 * The world `input` describes, with a minted id when it names none; not stored.
 * @throws `invalid_request` without `startTime`.
 */
export function newWorld(deps: Pick<Deps, "ids">, input: CreateWorldInput): World {
  if (input.startTime === undefined) {
    throw new SimulacraError(
      "invalid_request",
      'Cannot create a world without a start time: give startTime, e.g. "2023-02-13T07:00:00"',
    );
  }
  return {
    id: input.id ?? WorldId.parse(deps.ids.next("w")),
    name: input.name,
    clock: {
      now: input.startTime,
      minutesPerTick: input.minutesPerTick,
      mode: input.clock?.mode ?? "cron",
      paused: input.clock?.paused ?? false,
    },
    settings: input.settings,
  };
}
/**
 * The world with this id.
 * @throws `world_not_found`
 */
export async function getWorld(deps: Pick<Deps, "storage">, id: WorldId): Promise<World> {
  return (await loadWorldDoc(deps, id)).value;
}
/** Every world, ordered by id. */
export async function listWorlds(deps: Pick<Deps, "storage">): Promise<World[]> {
  const docs = await deps.storage.documents.list<World>("worlds", "");
  return docs.map((d) => withDefaults(d.value));
}

const ATTEMPTS = 8;
/**
 * The world document with its version, for compare-and-set.
 * @throws `world_not_found`
 */
export async function loadWorldDoc(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<Versioned<World>> {
  const doc = await requireDocument<World>(
    deps.storage.documents,
    worldKey(worldId),
    () => worldNotFound(worldId),
  );
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
