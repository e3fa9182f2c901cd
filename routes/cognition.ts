/** @module Cognition routes: reflect, consolidate. */
import { OpenAPIHono } from "@hono/zod-openapi";
import {
  consolidate,
  ConsolidateInput,
  ConsolidateResult,
  reflect,
  ReflectInput,
  ReflectResult,
} from "../src/app/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonBody, jsonContent } from "./_openapi.ts";

const cognition = routeGroup("Cognition");

const reflectRoute = cognition.post("/worlds/{world}/agents/{agent}/reflect", {
  middleware: requires("simulate", { model: true }),
  operationId: "reflect",
  summary:
    "Reflect when due (or forced): questions, cited insights, stored as reflection memories all or nothing",
  request: { body: jsonBody(ReflectInput) },
  responses: {
    200: jsonContent(ReflectResult, "The reflections stored; empty when not due and not forced"),
  },
  errors: [400, 401, 403, 404, 409, 413, 415, 502, 503, 504],
});

const consolidateRoute = cognition.post("/worlds/{world}/agents/{agent}/consolidate", {
  middleware: requires("simulate"),
  operationId: "consolidate",
  summary:
    "Consolidate memories now, as a night does in ticks: near-identical ones merged (count, firstAt, lastAt), the stream archived back under memoryBudget; no model call",
  request: { body: jsonBody(ConsolidateInput) },
  responses: { 200: jsonContent(ConsolidateResult, "What was merged and archived") },
  errors: [400, 401, 403, 404, 409, 413, 415, 503],
});

/** The cognition routes under `/v1`. */
export function cognitionRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(reflectRoute, async (c) => {
    const { world, agent } = c.req.valid("param");
    return c.json(
      await reflect(deps, { worldId: world, agentId: agent }, c.req.valid("json")),
      200,
    );
  });
  app.openapi(consolidateRoute, async (c) => {
    const { world, agent } = c.req.valid("param");
    return c.json(
      await consolidate(deps, { worldId: world, agentId: agent }, c.req.valid("json")),
      200,
    );
  });
  return app;
}
