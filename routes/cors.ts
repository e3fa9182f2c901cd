/**
 * @module CORS for browser games on another origin. It runs before auth, so a preflight
 * (`OPTIONS`, which browsers send without the Authorization header) is answered without a key.
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";

/** Request headers a browser client may send: the key, JSON bodies, SSE resumption. */
export const CORS_ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "last-event-id",
  "accept",
  "x-request-id",
];

/**
 * Answers preflights and adds `Access-Control-*` headers for the allowed origins (`"*"` for
 * any). Requests from other origins get no CORS headers, so the browser blocks their pages.
 */
export function corsMiddleware(origins: "*" | readonly string[]): MiddlewareHandler {
  return cors({
    origin: origins === "*" ? "*" : (origin) => (origins.includes(origin) ? origin : null),
    allowMethods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"],
    allowHeaders: CORS_ALLOWED_HEADERS,
    exposeHeaders: ["x-request-id", "retry-after"],
    maxAge: 600,
  });
}
