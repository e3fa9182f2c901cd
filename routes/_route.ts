/**
 * @module Route builders, in the spirit of Hono's `createRoute`: what every /v1 operation shares
 * (the `{world}` and `{agent}` path parameters, the JSON error responses) is filled in here, so a
 * route states only what is its own. Each route still declares its access with `middleware:
 * requires(…)` (routes/permissions.ts).
 */
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { z } from "zod";
import type { AgentScope } from "../src/domain/mod.ts";
import { errorResponses } from "./errors.ts";
import { AgentParams, WorldParams } from "./_openapi.ts";

/** A route as `createRoute` takes it, its success `responses` apart from its error `errors`. */
export type Operation = RouteConfig & { errors: readonly ContentfulStatusCode[] };

/**
 * `createRoute` with the error responses of `errors` added (the shared JSON error body). The
 * handler's typed answers stay the success `responses`: errors are thrown, and app.ts's error
 * handler writes them.
 */
export function route<const O extends Operation>(operation: O) {
  const { errors, responses, ...config } = operation;
  const answers: O["responses"] = { ...responses, ...errorResponses(...errors) };
  return createRoute({ ...config, responses: answers });
}

/** A route under `/worlds/{world}`: its `world` path parameter is filled in. */
export function worldRoute<const O extends Operation & { path: `/worlds/{world}${string}` }>(
  operation: O,
) {
  return route(withParams(operation, WorldParams));
}

/** A route under `/worlds/{world}/agents/{agent}`: its two path parameters are filled in. */
export function agentRoute<
  const O extends Operation & { path: `/worlds/{world}/agents/{agent}${string}` },
>(operation: O) {
  return route(withParams(operation, AgentParams));
}

/** `operation` with its request's path parameters set to `params`. */
function withParams<O extends Operation, P extends z.ZodType>(operation: O, params: P) {
  // Spreading a generic loses the request's own types (TypeScript widens them to the
  // constraint's), so the result is typed by hand: the operation, its request plus `params`.
  return { ...operation, request: { ...operation.request, params } } as
    & Omit<O, "request">
    & { request: O["request"] & { params: P } };
}

/** The agent a route's `{world}/agents/{agent}` parameters name, as the core takes it. */
export function agentScope(params: Pick<AgentScopeParams, "world" | "agent">): AgentScope {
  return { worldId: params.world, agentId: params.agent };
}

type AgentScopeParams = { world: AgentScope["worldId"]; agent: AgentScope["agentId"] };
