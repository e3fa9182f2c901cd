/**
 * @module What a /v1 operation needs, declared on its route: `createRoute({ …, middleware:
 * requires("simulate", { model: true }) })`. Access control (routes/access.ts) runs before every
 * /v1 route, takes the route Hono matched for the request and reads the declaration off it, so
 * the rule lives with the route and no second table of paths can drift from the routes. A route
 * without a declaration is open to the admin key only; the permission matrix test checks that
 * every operation of the OpenAPI document declares one.
 */
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { RouterRoute } from "hono/types";
import { type Requirement, SimulacraError } from "../src/domain/mod.ts";
import type { AppEnv } from "./app_env.ts";
import type { MatchedOperation, OperationRule } from "./operation_rule.ts";

export type { MatchedOperation, OperationRule };

/** The rule each declaring middleware stands for. */
const DECLARED = new WeakMap<object, OperationRule>();

/**
 * Declares what a route needs; pass it as `middleware` to `createRoute`. Access control enforces
 * the rule before any other /v1 middleware runs (budgets included); the middleware itself only
 * refuses to serve when that did not happen, so a route mounted without access control stays
 * closed.
 */
export function requires(
  need: Requirement,
  options: Omit<OperationRule, "need"> = {},
): MiddlewareHandler<AppEnv> {
  const rule: OperationRule = { need, ...options };
  const declared: MiddlewareHandler<AppEnv> = async function accessRule(c, next) {
    if (c.get("operation")?.rule !== rule) {
      throw new SimulacraError(
        "internal_error",
        `Cannot serve ${c.req.method} ${c.req.path}: access control did not check it`,
      );
    }
    await next();
  };
  DECLARED.set(declared, rule);
  return declared;
}

/**
 * The operation Hono matched for this request, or null when no route did (a 404 follows).
 * Middleware added with `use` has the method `ALL`; the first other entry starts the chain of the
 * route that answers, and its declaring middleware is in that chain.
 */
export function matchedOperation(c: Context): MatchedOperation | null {
  const routes = matchedRoutes(c);
  const first = routes.find((r) => r.method !== "ALL");
  if (first === undefined) return null;
  const chain = routes.filter((r) => r.method === first.method && r.path === first.path);
  const route = openApiPath(first.path);
  return {
    operation: `${first.method} ${route}`,
    route,
    rule: chain.map((r) => DECLARED.get(r.handler)).find((rule) => rule !== undefined),
    params: paramsOf(first.path, c.req.path),
  };
}

/** Every declared rule among an app's routes, by `METHOD /v1/path`: for the permission matrix. */
export function declaredRules(routes: readonly RouterRoute[]): Map<string, OperationRule> {
  return new Map(routes.flatMap((r) => {
    const rule = DECLARED.get(r.handler);
    return rule ? [[`${r.method} ${openApiPath(r.path)}`, rule] as const] : [];
  }));
}

/** Hono's `/v1/worlds/:world` as OpenAPI's `/v1/worlds/{world}`. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, "{$1}");
}

/** The values of the route's `:name` segments in the request path (Hono matched them). */
function paramsOf(pattern: string, path: string): Record<string, string> {
  const values = path.split("/");
  const named = pattern.split("/").flatMap((segment, i) =>
    segment.startsWith(":") ? [[segment.slice(1), decoded(values[i])] as const] : []
  );
  return Object.fromEntries(named);
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
