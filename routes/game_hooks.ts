/**
 * @module Game hook routes: the actions a game executes for its agents, the triggers it raises,
 * the goals it sets (README "Hooking a game in").
 */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import {
  deliverTrigger,
  listGameActions,
  listGoals,
  patchGoal,
  setGameActions,
  setGoals,
} from "../src/app/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import {
  GameActionList,
  GoalList,
  GoalPatch,
  GoalView,
  TriggerInput,
  TriggerResult,
} from "../src/domain/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { agentScope, routeGroup } from "./_route.ts";
import { AgentParams, jsonBody, jsonContent } from "./_openapi.ts";

const hooks = routeGroup("Game hooks");

const GoalParams = AgentParams.extend({
  goal: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/).meta({
    param: { name: "goal", in: "path" },
    example: "lantern-festival",
  }),
});

const putActionsRoute = hooks.put("/worlds/{world}/actions", {
  middleware: requires("direct"),
  operationId: "setActions",
  summary: "Register the game's actions (verbs its agents may ask it to carry out)",
  description:
    "Replaces the world's whole list (at most 64; `[]` removes them). A chat `respond` then answers `actions: [{id, name, arguments}]` when the agent decides to act, in the same model call; arguments are checked against the action's JSON Schema and an invalid or unknown action is listed in `droppedActions` instead. A duplicate name, an oversized description (over 500 characters) or schema (over 4,000 characters) and a `parameters` that is not a supported JSON Schema of an object are 422 with `details.index`.",
  request: { body: jsonBody(GameActionList) },
  responses: { 200: jsonContent(GameActionList, "The stored actions") },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 503],
});

const getActionsRoute = hooks.get("/worlds/{world}/actions", {
  middleware: requires("read"),
  operationId: "getActions",
  summary: "List the game's registered actions",
  responses: { 200: jsonContent(GameActionList, "The actions; [] while none is registered") },
  errors: [401, 403, 404, 503],
});

const postTriggerRoute = hooks.post("/worlds/{world}/triggers", {
  middleware: requires("direct", { model: true }),
  operationId: "sendTrigger",
  summary: "Raise a game event: a memory with provenance trigger:<name> for the agents it concerns",
  description:
    'Delivered to `agents` (default: every agent of the world), idempotent per agent by `eventId`. Each agent makes 1 embedding call and 1 importance call (none with `importance`); from importance 7 it also decides how to react, as to something it saw (1 call), and may re-plan the rest of its day (`reaction: "react"`). An unknown agent is 404 with `details.index`; a description over 2,000 characters or params over 2,000 characters of JSON is 422.',
  request: { body: jsonBody(TriggerInput) },
  responses: { 200: jsonContent(TriggerResult, "What each agent made of it") },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 429, 502, 503, 504],
});

const putGoalsRoute = hooks.put("/worlds/{world}/agents/{agent}/goals", {
  middleware: requires("direct"),
  operationId: "setGoals",
  summary: "Set the agent's goals: its day plans and re-plans serve the active ones by priority",
  description:
    "Replaces the agent's whole list (at most 20); a goal it already had that was done stays done. Plan items that serve a goal carry its `goalId`. A duplicate id or a description over 300 characters is 422 with `details.index`.",
  request: { body: jsonBody(GoalList) },
  responses: { 200: jsonContent(z.array(GoalView), "The goals with their status") },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 503],
});

const getGoalsRoute = hooks.get("/worlds/{world}/agents/{agent}/goals", {
  middleware: requires("read"),
  operationId: "getGoals",
  summary: "The agent's goals: status (active, done, expired) and the plan items serving each",
  description:
    "Status at the world clock: done when the game marked it so, expired once the clock passed `until`. `servedBy` lists the items of the plan of the world clock's day that carry the goal's id.",
  responses: { 200: jsonContent(z.array(GoalView), "The goals, in the order set") },
  errors: [401, 403, 404, 503],
});

const patchGoalRoute = hooks.patch("/worlds/{world}/agents/{agent}/goals/{goal}", {
  middleware: requires("direct"),
  operationId: "updateGoal",
  summary: 'Mark a goal done ({"status": "done"}) or active again',
  request: { params: GoalParams, body: jsonBody(GoalPatch) },
  responses: { 200: jsonContent(GoalView, "The goal as it is now") },
  errors: [400, 401, 403, 404, 409, 413, 415, 503],
});

/** The game hook routes under `/v1`. */
export function gameHookRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(putActionsRoute, async (c) => {
    const { world } = c.req.valid("param");
    return c.json(await setGameActions(deps, world, c.req.valid("json")), 200);
  });
  app.openapi(
    getActionsRoute,
    async (c) => c.json(await listGameActions(deps, c.req.valid("param").world, undefined), 200),
  );
  app.openapi(postTriggerRoute, async (c) => {
    const { world } = c.req.valid("param");
    return c.json(await deliverTrigger(deps, world, c.req.valid("json")), 200);
  });
  app.openapi(putGoalsRoute, async (c) => {
    const scope = agentScope(c.req.valid("param"));
    return c.json(await setGoals(deps, scope, c.req.valid("json")), 200);
  });
  app.openapi(
    getGoalsRoute,
    async (c) => c.json(await listGoals(deps, agentScope(c.req.valid("param"))), 200),
  );
  app.openapi(patchGoalRoute, async (c) => {
    const params = c.req.valid("param");
    const patch = c.req.valid("json");
    return c.json(await patchGoal(deps, agentScope(params), { goalId: params.goal, patch }), 200);
  });
  return app;
}
