/** @module Admin routes: store maintenance. Under /v1/admin, for the admin key only. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Deps } from "../src/ports/mod.ts";
import { WorldId } from "../src/domain/mod.ts";
import { repairStore } from "../src/app/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonContent } from "./_openapi.ts";

const admin = routeGroup("Admin");

const RepairInput = z
  .strictObject({
    worlds: z.array(WorldId).min(1).max(1000).optional().meta({
      description: "Only these worlds; default: every world of the store",
    }),
  })
  .meta({ id: "RepairInput", example: { worlds: ["smallville"] } });

const RepairReport = z
  .object({
    worlds: z.number().int(),
    agents: z.number().int(),
    memories: z.number().int(),
    reembedded: z.number().int().meta({ description: "Memories without a vector, embedded again" }),
    orphanVectorsDeleted: z.number().int().meta({
      description: "Vectors without a memory, deleted",
    }),
    swept: z.number().int().meta({
      description:
        "Agents swept memory by memory: all here; at start-up only those whose memory and vector counts differ",
    }),
  })
  .meta({ id: "RepairReport" });

const repairRoute = admin.post("/admin/repair", {
  middleware: requires("admin", { model: true }),
  operationId: "repairStore",
  summary: "Repair the store: embed memories that lost their vector, delete orphan vectors",
  description:
    "Runs the full sweep, agent by agent under each agent's lock (the server runs a quick one at start-up: only agents whose memory and vector counts differ). Admin only: needs the admin key.",
  request: { body: { required: false, content: { "application/json": { schema: RepairInput } } } },
  responses: { 200: jsonContent(RepairReport, "What was found and fixed") },
  errors: [400, 401, 403, 502, 503, 504],
});

/** The `/v1/admin` routes. */
export function adminRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(repairRoute, async (c) => {
    const body = c.req.header("content-type") ? c.req.valid("json") : {};
    return c.json(await repairStore(deps, { worlds: body.worlds }), 200);
  });
  return app;
}
