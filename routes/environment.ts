/** @module Environment routes: read and replace a world's environment tree, set an object's state. */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Deps } from "../src/ports/mod.ts";
import {
  Environment,
  EnvironmentView,
  PlacedObject,
  SetObjectStateInput,
} from "../src/domain/mod.ts";
import { getEnvironment, replaceEnvironment, setObjectState } from "../src/app/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonBody, jsonContent } from "./_openapi.ts";

const worlds = routeGroup("Worlds");

const getEnvironmentRoute = worlds.get("/worlds/{world}/environment", {
  middleware: requires("read"),
  operationId: "getEnvironment",
  summary: "Read the environment tree: areas → sub-areas → objects with their state",
  description: 'A world whose environment was never set answers `{"areas": []}`.',
  responses: { 200: jsonContent(EnvironmentView, "The environment; no areas while none is set") },
  errors: [401, 403, 404, 503],
});

const putEnvironmentRoute = worlds.put("/worlds/{world}/environment", {
  middleware: requires("direct"),
  operationId: "setEnvironment",
  summary: "Replace the whole environment tree",
  description:
    "Areas marked `common` become known to every agent created afterwards. Agents keep the areas they know.",
  request: { body: jsonBody(Environment) },
  responses: { 200: jsonContent(Environment, "The stored environment") },
  errors: [400, 401, 403, 404, 409, 413, 415, 503],
});

const setObjectRoute = worlds.patch("/worlds/{world}/objects", {
  middleware: requires("direct"),
  operationId: "setObjectState",
  summary:
    'Set an object\'s state in words, e.g. {"path": "Hobbs Cafe:kitchen:stove", "state": "burning"}',
  request: { body: jsonBody(SetObjectStateInput) },
  responses: { 200: jsonContent(PlacedObject, "The object with its new state") },
  errors: [400, 401, 403, 404, 409, 413, 415, 503],
});

/** The environment routes under `/v1`. */
export function environmentRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(
    getEnvironmentRoute,
    async (c) => c.json(await getEnvironment(deps, c.req.valid("param").world), 200),
  );
  app.openapi(putEnvironmentRoute, async (c) => {
    const { world } = c.req.valid("param");
    return c.json(await replaceEnvironment(deps, world, c.req.valid("json")), 200);
  });
  app.openapi(setObjectRoute, async (c) => {
    const { world } = c.req.valid("param");
    return c.json(await setObjectState(deps, world, c.req.valid("json")), 200);
  });
  return app;
}
