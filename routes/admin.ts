/** @module Admin routes: store maintenance. Under /v1/admin, for the admin key only. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Deps } from "../src/ports/mod.ts";
import { WorldId } from "../src/domain/mod.ts";
import { RepairCursor, repairStore } from "../src/app/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonContent } from "./_openapi.ts";

const admin = routeGroup("Admin");

/** Memories one call sweeps by default: about a second on the local stand-in (BENCHMARKS.md). */
const DEFAULT_LIMIT = 20_000;

const RepairInput = z
  .strictObject({
    worlds: z.array(WorldId).min(1).max(1000).optional().meta({
      description: "Only these worlds; default: every world of the store",
    }),
    cursor: RepairCursor.optional(),
    limit: z.number().int().min(1).max(1_000_000).default(DEFAULT_LIMIT).meta({
      description:
        "Stop once the agents swept by this call hold this many memories (whole agents: at least one) and answer a `cursor` to continue",
    }),
  })
  .meta({ id: "RepairInput", example: { worlds: ["smallville"] } });

const RepairReport = z
  .object({
    worlds: z.number().int(),
    agents: z.number().int().meta({ description: "Agents the sweep covers (every call of it)" }),
    memories: z.number().int().meta({ description: "Memories of the agents this call covered" }),
    reembedded: z.number().int().meta({ description: "Memories without a vector, embedded again" }),
    orphanVectorsDeleted: z.number().int().meta({
      description: "Vectors without a memory, deleted",
    }),
    swept: z.number().int().meta({
      description:
        "Agents swept memory by memory by this call: all it covered; at start-up only those whose memory and vector counts differ",
    }),
    done: z.number().int().meta({
      description:
        "Agents covered so far by this sweep (this call and those before it), of `agents`",
    }),
    cursor: RepairCursor.nullable().meta({
      description: "Send it back as `cursor` to continue the sweep; null when it is complete",
    }),
  })
  .meta({ id: "RepairReport" });

const repairRoute = admin.post("/admin/repair", {
  middleware: requires("admin", { model: true }),
  operationId: "repairStore",
  summary: "Repair the store: embed memories that lost their vector, delete orphan vectors",
  description:
    "Runs the full sweep, agent by agent (ordered by world and agent id) under each agent's lock; the server runs a quick one at start-up (only agents whose memory and vector counts differ). A call stops once the agents it swept hold `limit` memories and answers a `cursor`: send it back to continue, until `cursor` is null; `done` of `agents` is the progress. Admin only: needs the admin key.",
  request: { body: { required: false, content: { "application/json": { schema: RepairInput } } } },
  responses: { 200: jsonContent(RepairReport, "What was found and fixed") },
  errors: [400, 401, 403, 502, 503, 504],
});

/** The `/v1/admin` routes. */
export function adminRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(repairRoute, async (c) => {
    const body = c.req.header("content-type")
      ? c.req.valid("json")
      : { limit: DEFAULT_LIMIT, worlds: undefined, cursor: undefined };
    return c.json(await repairStore(deps, body), 200);
  });
  return app;
}
