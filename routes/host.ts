/**
 * @module The `Host` header: a malformed one (`127.0.0.1:80:evil`, `[::1].evil.com`) is a 400
 * before anything builds a URL from it, and the loopback check reads the whole name, parsed.
 */
import type { MiddlewareHandler } from "hono";
import { errorBody } from "./errors.ts";

/** `host[:port]`: a bracketed IPv6 address or a name (letters, digits, `.-_~`), then a port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~-]+)(?::\d{1,5})?$/;

/**
 * The host name of a `Host` header, lower-cased and canonical as in a URL (`127.1` is
 * `127.0.0.1`, `[0:0::1]` is `[::1]`), or null when the header is not `host[:port]`.
 */
export function parseHost(header: string): string | null {
  if (!HOST.test(header)) return null;
  try {
    return new URL(`http://${header}`).hostname;
  } catch {
    return null; // a bad IP literal, a port over 65535
  }
}

/**
 * Whether a `Host` header names this machine: `localhost`, `*.localhost`, `127.x.x.x` or `[::1]`.
 * A request without one (HTTP/1.0, or made in process) has no name to rebind.
 */
export function isLoopbackHost(header: string | undefined): boolean {
  if (header === undefined) return true;
  const name = parseHost(header);
  if (name === null) return false;
  return name === "localhost" || name.endsWith(".localhost") || name === "[::1]" ||
    /^127(\.\d{1,3}){3}$/.test(name);
}

/** The middleware for every route: a malformed `Host` header is a 400 `invalid_request`. */
export function hostGuard(): MiddlewareHandler {
  return async function hostGuardMiddleware(c, next) {
    const header = c.req.header("host");
    if (header !== undefined && parseHost(header) === null) {
      return c.json(
        errorBody(
          "invalid_request",
          `Cannot serve a request with a malformed Host header "${
            header.slice(0, 100)
          }": send host[:port]`,
        ),
        400,
      );
    }
    await next();
  };
}
