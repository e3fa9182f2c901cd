/** @module Memory routes: perceive, retrieve, list and read. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Deps } from "../src/ports/mod.ts";
import {
  forgetMemory,
  getMemory,
  listMemories,
  perceive,
  retrieve,
  RetrieveInput,
  RetrieveResult,
} from "../src/app/mod.ts";
import {
  ListMemoriesQuery,
  MemoryPageBody,
  MemoryWithEvidence,
  PerceiveInput,
  PerceiveResult,
} from "../src/domain/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { jsonBody, jsonContent, MemoryParams } from "./_openapi.ts";
import { agentScope, routeGroup } from "./_route.ts";

const memory = routeGroup("Memory");

const perceiveRoute = memory.post("/worlds/{world}/agents/{agent}/perceive", {
  middleware: requires("perceive", { model: true }),
  operationId: "perceive",
  summary:
    "Store 1–500 observations (idempotent by eventId; one importance call, one embedding call)",
  request: { body: jsonBody(PerceiveInput) },
  responses: { 200: jsonContent(PerceiveResult, "The memory of each observation, in order") },
  errors: [400, 401, 403, 404, 409, 413, 415, 502, 503, 504],
});

const retrieveRoute = memory.post("/worlds/{world}/agents/{agent}/retrieve", {
  middleware: requires("read", { model: true }),
  operationId: "retrieveMemories",
  summary: "The best memories for a query, with recency/importance/relevance explained",
  request: { body: jsonBody(RetrieveInput) },
  responses: { 200: jsonContent(RetrieveResult, "Best first") },
  errors: [400, 401, 403, 404, 502, 503, 504],
});

const listRoute = memory.get("/worlds/{world}/agents/{agent}/memories", {
  middleware: requires("read"),
  operationId: "listMemories",
  summary: "Page through memories by kind and creation time",
  request: { query: ListMemoriesQuery },
  responses: { 200: jsonContent(MemoryPageBody, "A page") },
  errors: [400, 401, 403, 404, 503],
});

const getRoute = memory.get("/worlds/{world}/agents/{agent}/memories/{memory}", {
  middleware: requires("read"),
  operationId: "getMemory",
  summary: "Read one memory; reflections include their evidence chain",
  request: { params: MemoryParams },
  responses: { 200: jsonContent(MemoryWithEvidence, "The memory") },
  errors: [401, 403, 404, 503],
});

const ForgottenMemory = z.object({
  id: z.string(),
  citedBy: z.array(z.string()).meta({ description: "Reflections that cite it" }),
}).meta({ id: "ForgottenMemory" });

const forgetRoute = memory.delete("/worlds/{world}/agents/{agent}/memories/{memory}", {
  middleware: requires("manage"),
  operationId: "forgetMemory",
  summary: "Forget one memory: its record and embedding go",
  description:
    "Reflections citing it keep their text; reading one lists the id under `forgottenEvidence`.",
  request: { params: MemoryParams },
  responses: { 200: jsonContent(ForgottenMemory, "The memory is forgotten") },
  errors: [401, 403, 404, 409, 503],
});

/** The memory routes under `/v1`. */
export function memoryRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(perceiveRoute, async (c) => {
    const { world, agent } = c.req.valid("param");
    return c.json(
      await perceive(deps, { worldId: world, agentId: agent }, c.req.valid("json")),
      200,
    );
  });
  app.openapi(retrieveRoute, async (c) => {
    const scope = agentScope(c.req.valid("param"));
    return c.json(await retrieve(deps, scope, c.req.valid("json")), 200);
  });
  app.openapi(listRoute, async (c) => {
    const scope = agentScope(c.req.valid("param"));
    return c.json(await listMemories(deps, scope, c.req.valid("query")), 200);
  });
  app.openapi(forgetRoute, async (c) => {
    const params = c.req.valid("param");
    return c.json(await forgetMemory(deps, agentScope(params), params.memory), 200);
  });
  app.openapi(getRoute, async (c) => {
    const params = c.req.valid("param");
    return c.json(await getMemory(deps, agentScope(params), params.memory), 200);
  });
  return app;
}
