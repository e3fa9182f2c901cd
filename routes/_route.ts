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

type Method = "get" | "post" | "put" | "patch" | "delete";

/** What a route of a group states itself: the group gives the tag, the call the method and path. */
type Spec = Omit<Operation, "method" | "path" | "tags">;

/**
 * The routes of one tag: `const memory = routeGroup("Memory")`, then
 * `memory.post("/worlds/{world}/agents/{agent}/perceive", {…})`. A route whose request names no
 * path parameters gets `{world}` (and `{agent}`) from its path.
 */
export function routeGroup(tag: string) {
  const method = <M extends Method>(m: M) =>
  <const P extends string, const S extends Spec>(
    path: P,
    spec: S,
  ) => {
    // Keys in the order routes wrote them, so the OpenAPI document keeps its order too.
    const { middleware, operationId, ...rest } = spec;
    return route(scoped({ method: m, path, middleware, operationId, tags: [tag], ...rest }));
  };
  return {
    get: method("get"),
    post: method("post"),
    put: method("put"),
    patch: method("patch"),
    delete: method("delete"),
  };
}

type WithParams<O extends Operation, P> =
  & Omit<O, "request">
  & { request: O["request"] & { params: P } };

/** `O` with the path parameters its path implies, unless its request names its own. */
type Scoped<O extends Operation> = O["request"] extends { params: z.ZodType } ? O
  : O["path"] extends `/worlds/{world}/agents/{agent}${string}` ? WithParams<O, typeof AgentParams>
  : O["path"] extends `/worlds/{world}${string}` ? WithParams<O, typeof WorldParams>
  : O;

function scoped<O extends Operation>(operation: O): Scoped<O> {
  const { path, request } = operation;
  if (request?.params) return operation as Scoped<O>;
  if (path.startsWith("/worlds/{world}/agents/{agent}")) {
    return withParams(operation, AgentParams) as Scoped<O>;
  }
  if (path.startsWith("/worlds/{world}")) return withParams(operation, WorldParams) as Scoped<O>;
  return operation as Scoped<O>;
}

/** `operation` with its request's path parameters set to `params`. */
function withParams<O extends Operation, P extends z.ZodType>(operation: O, params: P) {
  // Spreading a generic loses the request's own types (TypeScript widens them to the
  // constraint's), so the result is typed by hand: the operation, its request plus `params`.
  return { ...operation, request: { ...operation.request, params } } as WithParams<O, P>;
}

/** The agent a route's `{world}/agents/{agent}` parameters name, as the core takes it. */
export function agentScope(params: Pick<AgentScopeParams, "world" | "agent">): AgentScope {
  return { worldId: params.world, agentId: params.agent };
}

type AgentScopeParams = { world: AgentScope["worldId"]; agent: AgentScope["agentId"] };
