/** @module The one mapping from error codes to HTTP statuses, and the JSON error body. */
import { z } from "zod";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { ErrorCode } from "../src/domain/mod.ts";

/** The HTTP status of every error code; a new code without one fails `deno check`. */
export const statusOf: Record<ErrorCode, ContentfulStatusCode> = {
  invalid_request: 400,
  malformed_json: 400,
  unauthorized: 401,
  forbidden: 403,
  route_not_found: 404,
  world_not_found: 404,
  agent_not_found: 404,
  memory_not_found: 404,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  world_too_large: 409,
  keys_disabled: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  budget_exceeded: 429,
  model_unavailable: 502,
  model_invalid_output: 502,
  model_timeout: 504,
  store_unavailable: 503,
  unhealthy: 503,
  config_error: 500,
  internal_error: 500,
};

/** The error body every failing request gets. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ example: "world_not_found" }),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .meta({ id: "Error" });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** Builds an error body; `details` is left out when undefined. */
export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/** OpenAPI `responses` entries for the error statuses a route can return. */
export function errorResponses(
  ...statuses: ContentfulStatusCode[]
): Record<
  number,
  { description: string; content: { "application/json": { schema: typeof ErrorBody } } }
> {
  const descriptions: Record<number, string> = {
    400: "Invalid input or malformed JSON",
    401: "No key sent",
    403: "Key refused, or a permission or scope is missing",
    404: "Unknown world, agent, memory or route",
    409: "Conflict with existing state",
    413: "Body too large",
    415: "The body's Content-Type is not one the route reads",
    422: "Well-formed but impossible",
    429: "Rate limited (this key, this client, or the model provider) or over a budget",
    502: "The model failed or answered badly",
    503: "The store is unavailable",
    504: "The model timed out",
  };
  return Object.fromEntries(
    statuses.map((s) => [s, {
      description: descriptions[s] ?? "Error",
      content: { "application/json": { schema: ErrorBody } },
    }]),
  );
}
