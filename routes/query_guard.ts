/**
 * @module Refuses query parameters a route does not declare, on every /v1 route alike: a typo
 * such as `?limt=5` is a 400 naming it, never silently ignored.
 */
import type { MiddlewareHandler } from "hono";
import { errorBody } from "./errors.ts";
import { pathPattern, type RegisteredRoute } from "./framework_errors.ts";

interface DeclaredQuery {
  method: string;
  path: RegExp;
  names: Set<string>;
}

function declaredQueries(definitions: readonly unknown[]): DeclaredQuery[] {
  return (definitions as RegisteredRoute[]).flatMap((d) =>
    d.type === "route" && d.route
      ? [{
        method: d.route.method.toUpperCase(),
        path: pathPattern(d.route.path),
        names: new Set(Object.keys(d.route.request?.query?.shape ?? {})),
      }]
      : []
  );
}

/**
 * Answers 400 `invalid_request` when the request has a query parameter its route does not
 * declare. `definitions` is read on the first request, once every route is registered.
 */
export function queryGuard(definitions: () => readonly unknown[]): MiddlewareHandler {
  let routes: DeclaredQuery[] | undefined;
  return async function queryGuardMiddleware(c, next) {
    const names = [...new URL(c.req.url).searchParams.keys()];
    if (names.length === 0) return await next();
    routes ??= declaredQueries(definitions());
    const matching = routes.filter((r) => r.method === c.req.method && r.path.test(c.req.path));
    if (matching.length === 0) return await next(); // a 404 or 405 follows
    const allowed = new Set(matching.flatMap((r) => [...r.names]));
    const unknown = [...new Set(names.filter((n) => !allowed.has(n)))];
    if (unknown.length === 0) return await next();
    const known = [...allowed];
    return c.json(
      errorBody(
        "invalid_request",
        `Invalid query: unknown parameter${unknown.length > 1 ? "s" : ""} ${
          unknown.map((n) => `"${n.slice(0, 50)}"`).join(", ")
        }: ${known.length ? `this route reads ${known.join(", ")}` : "this route reads none"}`,
        { target: "query", unknown, allowed: known },
      ),
      400,
    );
  };
}
