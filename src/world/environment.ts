/** @module The environment tree of a world: areas → sub-areas → objects with a state (Generative Agents §5). */
import { z } from "zod";
import type { Deps } from "../deps.ts";
import { updateDocument } from "../ports/update_document.ts";
import { NotFoundError } from "../errors.ts";
import type { WorldId } from "../ids.ts";
import type { DocumentKey } from "../ports/document_store.ts";
import { getWorld } from "./world.ts";

/** The separator of location paths such as `Hobbs Cafe:cafe:coffee machine`. */
export const PATH_SEPARATOR = ":";

/** Most objects a whole environment may hold (keeps the document and prompts small). */
export const MAX_ENVIRONMENT_OBJECTS = 2000;

const Name = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[^:\r\n]+$/, "Names cannot contain ':' or line breaks");

const ObjectState = z
  .string()
  .trim()
  .max(200)
  .meta({ description: "What the object is doing, in words; empty when nothing is notable" });

/** An object in a sub-area, e.g. a coffee machine that is "brewing coffee". */
export const EnvironmentObject = z
  .strictObject({ name: Name, state: ObjectState.default("") })
  .meta({ id: "EnvironmentObject", example: { name: "coffee machine", state: "brewing coffee" } });
export type EnvironmentObject = z.infer<typeof EnvironmentObject>;

/** A room or part of an area, e.g. the kitchen of a house. */
export const SubArea = z
  .strictObject({ name: Name, objects: z.array(EnvironmentObject).max(50).default([]) })
  .meta({ id: "SubArea" });
export type SubArea = z.infer<typeof SubArea>;

/** A place in the world, e.g. a house, a cafe or a park. */
export const Area = z
  .strictObject({
    name: Name,
    common: z.boolean().default(false).meta({
      description: "Every new agent knows common areas (shops, parks, the cafe)",
    }),
    subAreas: z.array(SubArea).max(30).default([]),
  })
  .meta({ id: "Area" });
export type Area = z.infer<typeof Area>;

function key(name: string): string {
  return name.toLowerCase();
}

/** The whole tree. Names are unique (case-insensitively) among siblings. */
export const Environment = z
  .strictObject({ areas: z.array(Area).min(1).max(100) })
  .superRefine((env, ctx) => {
    const duplicate = (names: string[], path: (string | number)[], what: string) => {
      const seen = new Set<string>();
      names.forEach((name, i) => {
        if (seen.has(key(name))) {
          ctx.addIssue({
            code: "custom",
            path: [...path, i, "name"],
            message: `Names of ${what} must be unique: "${name}" appears twice`,
          });
        }
        seen.add(key(name));
      });
    };
    duplicate(env.areas.map((a) => a.name), ["areas"], "areas");
    let objects = 0;
    env.areas.forEach((area, a) => {
      duplicate(area.subAreas.map((s) => s.name), ["areas", a, "subAreas"], "sub-areas");
      area.subAreas.forEach((sub, s) => {
        objects += sub.objects.length;
        duplicate(
          sub.objects.map((o) => o.name),
          ["areas", a, "subAreas", s, "objects"],
          "objects",
        );
      });
    });
    if (objects > MAX_ENVIRONMENT_OBJECTS) {
      ctx.addIssue({
        code: "custom",
        path: ["areas"],
        message: `An environment holds at most ${MAX_ENVIRONMENT_OBJECTS} objects, not ${objects}`,
      });
    }
  })
  .meta({
    id: "Environment",
    example: {
      areas: [
        {
          name: "Hobbs Cafe",
          common: true,
          subAreas: [
            {
              name: "cafe",
              objects: [{ name: "counter" }, { name: "coffee machine", state: "brewing coffee" }],
            },
            { name: "kitchen", objects: [{ name: "stove", state: "off" }] },
          ],
        },
      ],
    },
  });
export type Environment = z.infer<typeof Environment>;

/** The body of `PATCH /v1/worlds/{world}/objects`. */
export const SetObjectStateInput = z
  .strictObject({
    path: z
      .string()
      .trim()
      .regex(
        /^[^:\r\n]+:[^:\r\n]+:[^:\r\n]+$/,
        'Name an object as "Area:Sub-area:Object", e.g. "Hobbs Cafe:kitchen:stove"',
      ),
    state: ObjectState.meta({ description: "The new state; empty clears it", example: "burning" }),
  })
  .meta({
    id: "SetObjectStateInput",
    example: { path: "Hobbs Cafe:kitchen:stove", state: "burning" },
  });
export type SetObjectStateInput = z.infer<typeof SetObjectStateInput>;

/** An object with its full path, as `PATCH …/objects` returns it. */
export const PlacedObject = z
  .object({ path: z.string(), name: z.string(), state: z.string() })
  .meta({ id: "PlacedObject" });
export type PlacedObject = z.infer<typeof PlacedObject>;

/** What a path names: an area, optionally narrowed to a sub-area and an object. */
export interface ResolvedPath {
  area: Area;
  subArea?: SubArea;
  object?: EnvironmentObject;
  /** The canonical path, with the environment's spelling of each name. */
  path: string;
}

/** Where a world's environment document lives. */
export function environmentKey(worldId: string): DocumentKey {
  return { collection: "environments", scope: worldId, id: "environment" };
}

/** What an area holds, as prompt text: `cafe (counter, coffee machine: brewing coffee), kitchen`. */
export function areaContents(area: Area): string {
  return area.subAreas.map((sub) => {
    if (sub.objects.length === 0) return sub.name;
    const objects = sub.objects.map((o) => (o.state === "" ? o.name : `${o.name}: ${o.state}`));
    return `${sub.name} (${objects.join(", ")})`;
  }).join(", ");
}

/** Renders one area as prompt text: `Hobbs Cafe: cafe (counter, coffee machine: brewing coffee)`. */
export function renderArea(area: Area): string {
  return area.subAreas.length === 0 ? area.name : `${area.name}: ${areaContents(area)}`;
}

/**
 * Renders the tree as prompt text, one line per area, e.g.
 * `Hobbs Cafe: cafe (counter, coffee machine: brewing coffee), kitchen (stove: off)`.
 * With `known`, only those areas (matched case-insensitively) are rendered.
 * @see Generative Agents §5 "Environment tree"
 */
export function renderEnvironment(tree: Environment, known?: readonly string[]): string {
  return knownAreasOf(tree, known).map(renderArea).join("\n");
}

/** The areas of a tree, restricted to `known` names when given, in tree order. */
export function knownAreasOf(tree: Environment, known?: readonly string[]): Area[] {
  if (known === undefined) return tree.areas;
  const wanted = new Set(known.map(key));
  return tree.areas.filter((a) => wanted.has(key(a.name)));
}

/** The area with this name (case-insensitive), or undefined. */
export function findArea(tree: Environment, name: string): Area | undefined {
  const wanted = key(name.trim());
  return tree.areas.find((a) => key(a.name) === wanted);
}

/**
 * Every location path of the tree, deepest first where it exists: `Area:Sub-area:Object` for
 * each object, `Area:Sub-area` for a sub-area without objects, `Area` for an area without
 * sub-areas. With `known`, only those areas are listed.
 */
export function listPaths(tree: Environment, known?: readonly string[]): string[] {
  const out: string[] = [];
  for (const area of knownAreasOf(tree, known)) {
    if (area.subAreas.length === 0) out.push(area.name);
    for (const sub of area.subAreas) {
      if (sub.objects.length === 0) out.push(joinPath(area.name, sub.name));
      for (const object of sub.objects) out.push(joinPath(area.name, sub.name, object.name));
    }
  }
  return out;
}

/** Joins names into a path. */
export function joinPath(...names: string[]): string {
  return names.join(PATH_SEPARATOR);
}

/** The area name a path starts with (`"Hobbs Cafe:cafe"` → `"Hobbs Cafe"`), trimmed. */
export function areaOfPath(path: string): string {
  return path.split(PATH_SEPARATOR)[0].trim();
}

/**
 * Resolves a path of one to three names (`Area`, `Area:Sub-area`, `Area:Sub-area:Object`),
 * case-insensitively and ignoring spaces around separators; null when any part is unknown.
 */
export function resolvePath(tree: Environment, path: string): ResolvedPath | null {
  const parts = path.split(PATH_SEPARATOR).map((p) => p.trim());
  if (parts.length < 1 || parts.length > 3 || parts.some((p) => p === "")) return null;
  const area = findArea(tree, parts[0]);
  if (!area) return null;
  if (parts.length === 1) return { area, path: area.name };
  const subArea = area.subAreas.find((s) => key(s.name) === key(parts[1]));
  if (!subArea) return null;
  if (parts.length === 2) return { area, subArea, path: joinPath(area.name, subArea.name) };
  const object = subArea.objects.find((o) => key(o.name) === key(parts[2]));
  if (!object) return null;
  return { area, subArea, object, path: joinPath(area.name, subArea.name, object.name) };
}

/** The world's environment, or null when none was set. Does not check that the world exists. */
export async function loadEnvironment(
  deps: Pick<Deps, "storage">,
  worldId: string,
): Promise<Environment | null> {
  return (await deps.storage.documents.get<Environment>(environmentKey(worldId)))?.value ?? null;
}

/** What `GET …/environment` answers: the tree, or no areas while none was set. */
export const EnvironmentView = z
  .object({ areas: z.array(Area) })
  .meta({
    id: "EnvironmentView",
    description:
      "The environment tree; `areas` is empty while the world has none (set one with PUT …/environment)",
  });

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
export async function replaceEnvironment(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  tree: Environment,
): Promise<Environment> {
  await getWorld(deps, worldId);
  await updateEnvironment(deps, worldId, { change: () => tree, create: true });
  return tree;
}

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
  await updateDocument(deps.storage.documents, environmentKey(worldId), change, {
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
