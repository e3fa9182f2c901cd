/** @module The environment tree of a world: areas → sub-areas → objects with a state (Generative Agents §5). */
import { z } from "zod";

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
/** Columns and rows a map position may name. */
export const MAP_COLUMNS_MAX = 12;
export const MAP_ROWS_MAX = 100;
/** Where a map (the playground's town board) draws an area: a cell of a grid. */
export const MapPosition = z
  .strictObject({
    x: z.int().min(0).max(MAP_COLUMNS_MAX - 1).meta({ description: "Column, 0 at the left" }),
    y: z.int().min(0).max(MAP_ROWS_MAX - 1).meta({ description: "Row, 0 at the top" }),
  })
  .meta({
    id: "MapPosition",
    description:
      "Optional: the map cell of the area. Areas without one fill the free cells in the tree's order.",
    example: { x: 1, y: 0 },
  });
export type MapPosition = z.infer<typeof MapPosition>;
/** A place in the world, e.g. a house, a cafe or a park. */
export const Area = z
  .strictObject({
    name: Name,
    common: z.boolean().default(false).meta({
      description: "Every new agent knows common areas (shops, parks, the cafe)",
    }),
    subAreas: z.array(SubArea).max(30).default([]),
    position: MapPosition.optional(),
  })
  .meta({ id: "Area" });
export type Area = z.infer<typeof Area>;
export function key(name: string): string {
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
    const cells = new Map<string, string>();
    env.areas.forEach((area, a) => {
      if (!area.position) return;
      const cell = `${area.position.x},${area.position.y}`;
      const other = cells.get(cell);
      if (other !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["areas", a, "position"],
          message: `"${area.name}" and "${other}" cannot share the map cell (${cell})`,
        });
      }
      cells.set(cell, area.name);
    });
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
  // Not `split`: perception asks this for every pair of agents each tick (issue 25).
  const end = path.indexOf(PATH_SEPARATOR);
  return (end === -1 ? path : path.slice(0, end)).trim();
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
/** What `GET …/environment` answers: the tree, or no areas while none was set. */
export const EnvironmentView = z
  .object({ areas: z.array(Area) })
  .meta({
    id: "EnvironmentView",
    description:
      "The environment tree; `areas` is empty while the world has none (set one with PUT …/environment)",
  });
