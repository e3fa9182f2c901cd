/** @module Reads and writes for world: Worlds: a named place with its own game clock (Generative Agents §5). */
import type { Deps, DocumentKey } from "../../ports/mod.ts";
import {
  ConflictError,
  CreateWorldInput,
  LeaseLostError,
  SimulacraError,
  withDefaults,
  World,
  WORLD_CREATION_TTL_MS,
  worldCreationKey,
  WorldId,
  worldNotFound,
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
  const doc = await deps.storage.documents.get<World>(worldKey(id));
  if (!doc) throw worldNotFound(id);
  return withDefaults(doc.value);
}
/** Every world, ordered by id. */
export async function listWorlds(deps: Pick<Deps, "storage">): Promise<World[]> {
  const docs = await deps.storage.documents.list<World>("worlds", "");
  return docs.map((d) => withDefaults(d.value));
}
