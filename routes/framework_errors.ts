/**
 * @module Turns the exceptions Hono and zod-openapi throw (bad JSON, wrong Content-Type, a body
 * too large…) into the JSON error body with the status they carry, so a client mistake is
 * never reported as a server fault.
 */
import type { Context } from "hono";
import type { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode } from "../src/domain/mod.ts";
import { errorBody } from "./errors.ts";

/** A route's method, path pattern and the request media types it declares. */
export interface DeclaredBody {
  method: string;
  path: RegExp;
  mediaTypes: string[];
}

/** What the OpenAPI registry holds for a route (the fields read here). */
export interface RegisteredRoute {
  type: string;
  route?: {
    method: string;
    path: string;
    request?: {
      body?: { content?: Record<string, unknown> };
      query?: { shape?: Record<string, unknown> };
    };
  };
}

/**
 * The request media types of every route in an app's OpenAPI registry, so a 415 can name
 * what the route reads. Paths are the document's (`/v1/worlds/{world}`).
 */
export function declaredBodies(definitions: readonly unknown[]): DeclaredBody[] {
  return (definitions as RegisteredRoute[]).flatMap((d) => {
    const content = d.type === "route" ? d.route?.request?.body?.content : undefined;
    if (!d.route || !content) return [];
    return [{
      method: d.route.method.toUpperCase(),
      path: pathPattern(d.route.path),
      mediaTypes: Object.keys(content),
    }];
  });
}

/** A document path (`/v1/worlds/{world}`) as a regular expression matching request paths. */
export function pathPattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
  return new RegExp(`^${escaped}$`);
}

const codeOfStatus: Partial<Record<number, ErrorCode>> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  405: "method_not_allowed",
  408: "request_timeout",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "unprocessable",
  429: "rate_limited",
};

/**
 * The JSON error response for a framework exception, keeping its status. A 5xx exception is a
 * server fault: the caller logs it.
 */
export function frameworkErrorResponse(
  err: HTTPException,
  c: Context,
  bodies: readonly DeclaredBody[],
): Response {
  const status = err.status as ContentfulStatusCode;
  if (status === 400 && /json/i.test(err.message)) {
    return c.json(
      errorBody(
        "malformed_json",
        "Cannot parse the request body as JSON: send valid JSON with Content-Type: application/json",
      ),
      400,
    );
  }
  if (status === 413) {
    return c.json(errorBody("payload_too_large", "Cannot accept a body this large"), 413);
  }
  if (status === 415) {
    const declared = bodies.find((b) => b.method === c.req.method && b.path.test(c.req.path));
    const expected = declared?.mediaTypes.join(" or ") ?? "application/json";
    const sent = c.req.header("content-type");
    return c.json(
      errorBody(
        "unsupported_media_type",
        `Cannot read a body ${
          sent ? `of type "${sent.slice(0, 100)}"` : "without a Content-Type"
        }: send it with Content-Type: ${expected}`,
        { expected: declared?.mediaTypes ?? ["application/json"], received: sent ?? null },
      ),
      415,
    );
  }
  if (status >= 500) {
    return c.json(
      errorBody(
        "internal_error",
        `Cannot complete the request because of a server fault: report request id "${
          c.get("requestId")
        }"`,
      ),
      status,
    );
  }
  const code = codeOfStatus[status] ?? "invalid_request";
  return c.json(errorBody(code, err.message || `The request failed with status ${status}`), status);
}
