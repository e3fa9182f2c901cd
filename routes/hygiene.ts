/**
 * @module Refuses JSON bodies that nest too deep or carry control characters or lone
 * surrogates, naming the field, before any route parses them. Card imports are let through:
 * the card parser strips such characters instead (cards come from other tools).
 */
import type { MiddlewareHandler } from "hono";
import { findUnsafeText, jsonDepthExceeds, MAX_JSON_DEPTH } from "../src/domain/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { errorBody } from "./errors.ts";

const WITH_BODY = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const STRIPPED_BY_ROUTE = "POST /v1/worlds/{world}/agents/import";

/** The middleware for `/v1/*`; runs after access control. */
export function textHygiene(): MiddlewareHandler<AppEnv> {
  return async function textHygieneMiddleware(c, next) {
    const type = c.req.header("content-type") ?? "";
    if (!WITH_BODY.has(c.req.method) || !/^application\/([a-z.-]+\+)?json\b/i.test(type)) {
      return await next();
    }
    const text = await c.req.text();
    if (jsonDepthExceeds(text)) {
      return c.json(
        errorBody(
          "invalid_request",
          `Cannot accept JSON nested deeper than ${MAX_JSON_DEPTH} levels`,
          { limit: MAX_JSON_DEPTH },
        ),
        400,
      );
    }
    if (c.get("operation")?.operation === STRIPPED_BY_ROUTE) return await next();
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return await next(); // the route's validator answers malformed_json
    }
    const unsafe = findUnsafeText(value);
    if (unsafe) {
      return c.json(
        errorBody(
          "invalid_request",
          `Invalid json at "${unsafe.path}": the text ${unsafe.reason}`,
          { target: "json", issues: [{ path: unsafe.path, code: "unsafe_text" }] },
        ),
        400,
      );
    }
    await next();
  };
}
