/** @module Admin-key auth for /v1 routes (API.md Conventions). */
import type { MiddlewareHandler } from "hono";
import { errorBody } from "./errors.ts";

/** Constant-time comparison, so response timing does not reveal the key. */
function sameKey(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * Requires `Authorization: Bearer <adminKey>` when a key is configured: 401 `unauthorized` when
 * it is missing, 403 `forbidden` when it is wrong. Without a key, everything passes (the server
 * then binds 127.0.0.1 only).
 */
export function adminAuth(adminKey: string | undefined): MiddlewareHandler {
  return async function adminAuthMiddleware(c, next) {
    if (adminKey === undefined) return await next();
    const header = c.req.header("authorization");
    const match = header ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
    if (!match) {
      return c.json(
        errorBody(
          "unauthorized",
          "Cannot authorise this request: send Authorization: Bearer <SIMULACRA_ADMIN_KEY>",
        ),
        401,
      );
    }
    if (!sameKey(match[1], adminKey)) {
      return c.json(
        errorBody("forbidden", "Cannot authorise this request: the admin key is wrong"),
        403,
      );
    }
    await next();
  };
}
