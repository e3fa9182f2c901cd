/**
 * @module A world's environment tree in storage: read, replace, set object states, and the areas
 * an agent comes to know (Generative Agents §5).
 */
import { type Deps, type DocumentKey, updateDocument } from "../../ports/mod.ts";
import {
  areaOfPath,
  Environment,
  findArea,
  key,
  NotFoundError,
  PATH_SEPARATOR,
  PlacedObject,
  resolvePath,
  SetObjectStateInput,
  type WorldId,
} from "../../domain/mod.ts";
import { getWorld } from "./world_store.ts";
import { ofExistingWorld } from "./world_reads.ts";

/** Where a world's environment document lives. */
export function environmentKey(worldId: string): DocumentKey {
  return { collection: "environments", scope: worldId, id: "environment" };
}
/** The world's environment, or null when none was set. Does not check that the world exists. */
export async function loadEnvironment(
  deps: Pick<Deps, "storage">,
  worldId: string,
): Promise<Environment | null> {
  return (await deps.storage.documents.get<Environment>(environmentKey(worldId)))?.value ?? null;
}
/**
 * The environment of a world; a world without one (a normal state: it was created empty) has no
 * areas.
 * @throws `world_not_found`
 */
export async function getEnvironment(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<Environment> {
  await getWorld(deps, worldId);
  return await loadEnvironment(deps, worldId) ?? { areas: [] };
}
/**
 * Replaces the world's whole environment tree. Agents keep their known areas; names that no
 * longer exist are simply not rendered.
 * @throws `world_not_found`, `conflict` when concurrent writes keep winning.
 */
export const replaceEnvironment = ofExistingWorld<Environment, Environment>(
  async (deps, worldId, tree) => {
    await updateEnvironment(deps, worldId, { change: () => tree, create: true });
    return tree;
  },
);
/**
 * Sets one object's state in words ("stove: burning").
 * @throws `world_not_found`; `not_found` naming the path when the world has no environment or
 * the object does not exist.
 */
export async function setObjectState(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  input: SetObjectStateInput,
): Promise<PlacedObject> {
  const world = await getWorld(deps, worldId);
  const [{ placed, previous }] = await setObjectStates(deps, worldId, [input]);
  // Logged like a change an agent makes in a tick (without agentId), so live viewers see it.
  await deps.storage.events.append(worldId, [{
    type: "object_state",
    at: world.clock.now,
    path: placed.path,
    state: input.state,
    previous,
  }]);
  return placed;
}
/**
 * Sets several objects' states in one write of the environment (a tick's object uses), logging
 * nothing: the caller's events describe the changes.
 * @returns each object as placed and the state it had.
 * @throws `not_found` naming the first path the environment does not have (nothing written).
 */
export async function setObjectStates(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  inputs: readonly SetObjectStateInput[],
): Promise<{ placed: PlacedObject; previous: string }[]> {
  let changed: { placed: PlacedObject; previous: string }[] = [];
  const change = (current: Environment | null): Environment => {
    changed = [];
    let next = current;
    for (const input of inputs) {
      const found = next ? resolvePath(next, input.path) : null;
      if (!next || !found?.object) {
        throw new NotFoundError(
          "not_found",
          `Cannot find object "${input.path}" in world "${worldId}": read the paths with GET /v1/worlds/${worldId}/environment`,
        );
      }
      const [areaName, subName, objectName] = found.path.split(PATH_SEPARATOR);
      changed.push({
        placed: { path: found.path, name: objectName, state: input.state },
        previous: found.object.state,
      });
      next = {
        areas: next.areas.map((area) =>
          area.name !== areaName ? area : {
            ...area,
            subAreas: area.subAreas.map((sub) =>
              sub.name !== subName ? sub : {
                ...sub,
                objects: sub.objects.map((o) =>
                  o.name === objectName ? { ...o, state: input.state } : o
                ),
              }
            ),
          }
        ),
      };
    }
    return next!;
  };
  await updateEnvironment(deps, worldId, { change, create: false });
  return changed;
}
/** Writes the environment as `change` makes it from the current one (none yet: `create`). */
async function updateEnvironment(
  deps: Pick<Deps, "storage">,
  worldId: string,
  { change, create }: { change: (current: Environment | null) => Environment; create: boolean },
): Promise<void> {
  await updateDocument(deps.storage.documents, environmentKey(worldId), {
    change,
    create,
    conflict:
      `Cannot update the environment of world "${worldId}": other writes kept changing it, retry shortly`,
  });
}
/**
 * The known areas after perceiving observations at `locations`: each location's area is added
 * (with the environment's spelling) when the environment has it and the agent did not know it.
 * Reads the environment only when some location names an area not yet known; returns `known`
 * itself when nothing changes.
 * @see Generative Agents §5 "Each agent knows a sub-tree … that grows as it perceives new areas"
 */
export async function knownAreasAfter(
  deps: Pick<Deps, "storage">,
  worldId: string,
  { known, locations }: { known: readonly string[]; locations: readonly (string | undefined)[] },
): Promise<string[]> {
  const have = new Set(known.map(key));
  const candidates = [
    ...new Set(
      locations.filter((l): l is string => l !== undefined).map(areaOfPath).filter((a) =>
        a !== "" && !have.has(key(a))
      ),
    ),
  ];
  if (candidates.length === 0) return known as string[];
  const env = await loadEnvironment(deps, worldId);
  if (!env) return known as string[];
  const added: string[] = [];
  for (const name of candidates) {
    const area = findArea(env, name);
    if (area && !have.has(key(area.name))) {
      have.add(key(area.name));
      added.push(area.name);
    }
  }
  return added.length === 0 ? known as string[] : [...known, ...added];
}
