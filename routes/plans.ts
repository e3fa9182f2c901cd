/** @module Planning routes: make or re-plan an agent's day, read it, and ask for its current action. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { actionAt, readPlan, requestPlan } from "../src/app/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { agentScope, routeGroup } from "./_route.ts";
import { jsonContent } from "./_openapi.ts";
import {
  ActionQuery,
  ActionResult,
  PlanInput,
  PlanQuery,
  PlanResult,
  PlanView,
  planView,
} from "./plan_shapes.ts";

const cognition = routeGroup("Cognition");

const postPlanRoute = cognition.post("/worlds/{world}/agents/{agent}/plan", {
  middleware: requires("simulate", { model: true }),
  operationId: "makePlan",
  summary:
    "Plan the agent's day in broad strokes (5–8 items), or with `from` re-plan the rest of it",
  description:
    "One main-model call (plus the agent summary when it is not cached). Items are ordered, do not overlap and are placed in areas the agent knows. A date before the agent's creation or more than 366 days after the world clock is 422.",
  request: {
    body: { required: false, content: { "application/json": { schema: PlanInput } } },
  },
  responses: { 200: jsonContent(PlanResult, "The day plan") },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 502, 503, 504],
});

const getPlanRoute = cognition.get("/worlds/{world}/agents/{agent}/plan", {
  middleware: requires("read"),
  operationId: "getPlan",
  summary: "Read the agent's plan of a day (404 when none was made)",
  request: { query: PlanQuery },
  responses: { 200: jsonContent(PlanView, "The day plan") },
  errors: [400, 401, 403, 404, 422, 503],
});

const getActionRoute = cognition.get("/worlds/{world}/agents/{agent}/action", {
  middleware: requires("read"),
  operationId: "getAction",
  summary: "What the agent is doing at a time: a 5–60-minute action with location and emoji",
  description:
    'Decomposes just in time: the day plan if missing, the broad item in progress into hour chunks, the hour in progress into actions; each step is cached. Before waking up and after bedtime the action is "sleeping".',
  request: { query: ActionQuery },
  responses: { 200: jsonContent(ActionResult, "The action in progress") },
  errors: [400, 401, 403, 404, 409, 422, 502, 503, 504],
});

/** The planning routes under `/v1`. */
export function planRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(postPlanRoute, async (c) => {
    const input = c.req.valid("json") ?? {};
    const { plan, usage } = await requestPlan(deps, agentScope(c.req.valid("param")), input);
    return c.json({ ...planView(plan), usage }, 200);
  });
  app.openapi(getPlanRoute, async (c) => {
    const { date } = c.req.valid("query");
    return c.json(planView(await readPlan(deps, agentScope(c.req.valid("param")), date)), 200);
  });
  app.openapi(getActionRoute, async (c) => {
    const { at } = c.req.valid("query");
    return c.json(await actionAt(deps, agentScope(c.req.valid("param")), at), 200);
  });
  return app;
}
