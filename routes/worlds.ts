/** @module World routes: create, list, read, and usage totals. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Deps } from "../src/ports/mod.ts";
import {
  createWorldFromTemplate,
  deleteWorld,
  getWorld,
  listWorlds,
  type TownCatalog,
  WorldUsage,
  worldUsage,
} from "../src/app/mod.ts";
import { CreateWorldInput, seesWorld, World } from "../src/domain/mod.ts";
import { utcDay } from "../lib/access/budget_meter.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { DeletedBody, jsonBody, jsonContent as json, NextCursor } from "./_openapi.ts";
import { pageById, PageQuery } from "./pages.ts";

const worlds = routeGroup("Worlds");

const createWorldRoute = worlds.post("/worlds", {
  middleware: requires("admin", { model: true }),
  operationId: "createWorld",
  summary: "Create a world with its own game clock",
  description:
    'With `template: "smallville"` the world comes with the example town: its environment and every agent with seed memories.',
  request: { body: jsonBody(CreateWorldInput) },
  responses: { 201: json(World, "The new world") },
  errors: [400, 401, 403, 409, 413, 415, 502, 503, 504],
});

const listWorldsRoute = worlds.get("/worlds", {
  middleware: requires("read"),
  operationId: "listWorlds",
  summary: "List worlds by id, a page at a time",
  request: { query: PageQuery },
  responses: {
    200: json(
      z.object({ worlds: z.array(World), next: NextCursor }).meta({ id: "WorldPage" }),
      "A page of worlds",
    ),
  },
  errors: [400, 401, 403, 503],
});

const deleteWorldRoute = worlds.delete("/worlds/{world}", {
  middleware: requires("admin"),
  operationId: "deleteWorld",
  summary: "Delete a world with its agents and everything they own, from every store",
  description:
    "Waits for a running tick to finish. Memories, vectors, plans, personas, conversations, events, usage and idempotency records all go. Sending it again after a failure finishes the job.",
  responses: { 200: json(DeletedBody, "What was deleted") },
  errors: [401, 403, 404, 409, 503],
});

const getWorldRoute = worlds.get("/worlds/{world}", {
  middleware: requires("read", { agentScoped: true }),
  operationId: "getWorld",
  summary: "Read a world and its clock",
  responses: { 200: json(World, "The world") },
  errors: [401, 403, 404, 503],
});

const usageRoute = worlds.get("/worlds/{world}/usage", {
  middleware: requires("read"),
  operationId: "getWorldUsage",
  summary: "Model calls and tokens, per agent and per operation",
  responses: { 200: json(WorldUsage, "Usage totals") },
  errors: [401, 403, 404, 503],
});

/** The `/v1/worlds` routes; `towns` are the ready-made towns a world can start as. */
export function worldRoutes(deps: Deps, options: { towns: TownCatalog }): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(
    createWorldRoute,
    async (c) =>
      c.json(await createWorldFromTemplate(deps, c.req.valid("json"), options.towns), 201),
  );
  app.openapi(listWorldsRoute, async (c) => {
    // A key sees the worlds of its scope only.
    const principal = c.get("principal");
    const visible = (await listWorlds(deps)).filter((w) => seesWorld(principal, w.id));
    const page = pageById(visible, c.req.valid("query"));
    return c.json({ worlds: page.items, next: page.next }, 200);
  });
  app.openapi(
    deleteWorldRoute,
    async (c) => c.json(await deleteWorld(deps, c.req.valid("param").world), 200),
  );
  app.openapi(
    getWorldRoute,
    async (c) => c.json(await getWorld(deps, c.req.valid("param").world), 200),
  );
  app.openapi(
    usageRoute,
    async (c) =>
      c.json(
        await worldUsage(deps, c.req.valid("param").world, { day: utcDay(Date.now()) }),
        200,
      ),
  );
  return app;
}
