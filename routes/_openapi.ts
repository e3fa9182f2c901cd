/** @module Small helpers for route definitions shared by the routers. */
import { z } from "zod";
import { AgentId, MemoryId, WorldId } from "../src/domain/mod.ts";

/** A JSON response entry for `createRoute`. */
export function jsonContent<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } };
}

/** A required JSON request body for `createRoute`. */
export function jsonBody<T extends z.ZodType>(schema: T) {
  return { required: true, content: { "application/json": { schema } } };
}

/** The `next` of a page: pass it as `cursor` for the next page; null on the last. */
export const NextCursor = z.string().nullable().meta({
  description: "Pass as `cursor` for the next page; null on the last page",
});

/** What a DELETE removed. */
export const DeletedBody = z
  .object({
    worldId: z.string(),
    agentId: z.string().optional(),
    agents: z.number().int().meta({ description: "Agents removed" }),
  })
  .meta({ id: "Deleted" });

/** `{world}` path parameter. */
export const WorldParams = z.object({
  world: WorldId.meta({ param: { name: "world", in: "path" }, example: "smallville" }),
});

/** `{world}/agents/{agent}` path parameters. */
export const AgentParams = WorldParams.extend({
  agent: AgentId.meta({ param: { name: "agent", in: "path" }, example: "isabella" }),
});

/** `…/memories/{memory}` path parameters. */
export const MemoryParams = AgentParams.extend({
  memory: MemoryId.meta({ param: { name: "memory", in: "path" } }),
});
