/** @module The one error type of the core, with stable snake_case codes. HTTP statuses live in routes/errors.ts. */

/** Every error code the service can report. Adding one without a status fails `deno check` in routes/errors.ts. */
export type ErrorCode =
  | "invalid_request"
  | "malformed_json"
  | "unauthorized"
  | "forbidden"
  | "route_not_found"
  | "world_not_found"
  | "agent_not_found"
  | "memory_not_found"
  | "not_found"
  | "conflict"
  | "world_too_large"
  | "keys_disabled"
  | "method_not_allowed"
  | "request_timeout"
  | "payload_too_large"
  | "unsupported_media_type"
  | "unprocessable"
  | "rate_limited"
  | "budget_exceeded"
  | "model_unavailable"
  | "model_timeout"
  | "model_invalid_output"
  | "store_unavailable"
  | "unhealthy"
  | "config_error"
  | "internal_error";

/** Options for {@linkcode SimulacraError}. */
export interface SimulacraErrorOptions {
  /** Structured, user-safe details (never secrets, prompts or whole bodies). */
  details?: unknown;
  /** The underlying error, kept for logs. */
  cause?: unknown;
}

/** An error with a stable code that callers and the HTTP layer can branch on. */
export class SimulacraError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, options: SimulacraErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = "SimulacraError";
    this.code = code;
    this.details = options.details;
  }
}

/** A subclass for a family of codes, named for logs. */
function codeFamily<C extends ErrorCode>(name: string) {
  return class extends SimulacraError {
    constructor(code: C, message: string, options?: SimulacraErrorOptions) {
      super(code, message, options);
      this.name = name;
    }
  };
}

/** A subclass whose errors all carry one code, named for logs. */
function oneCode(code: ErrorCode, name: string) {
  return class extends SimulacraError {
    constructor(message: string, options?: SimulacraErrorOptions) {
      super(code, message, options);
      this.name = name;
    }
  };
}

/** A world, agent, memory or other resource that does not exist in the caller's scope. */
export class NotFoundError extends codeFamily<
  "world_not_found" | "agent_not_found" | "memory_not_found" | "not_found"
>("NotFoundError") {}

/** A write that lost a race or collides with existing state. */
export class ConflictError extends oneCode("conflict", "ConflictError") {}

/**
 * A write refused because the lease guarding it was lost (it expired and someone else took it):
 * nothing was written, and the new holder's work stands.
 */
export class LeaseLostError extends ConflictError {
  constructor(lockKey: string) {
    super(
      `Cannot write under lock "${lockKey}": the lock expired and was taken over, nothing was written: retry the request`,
    );
    this.name = "LeaseLostError";
  }
}

/** The language model or embedder failed after retries (timeout, 429/5xx, refused). */
export class ModelUnavailableError extends codeFamily<
  "model_unavailable" | "model_timeout" | "model_invalid_output" | "rate_limited"
>("ModelUnavailableError") {}

/** The storage backend (Deno KV, Upstash Redis, Upstash Vector) failed. */
export class StoreUnavailableError extends oneCode("store_unavailable", "StoreUnavailableError") {}

/** Configuration that cannot work; thrown at start-up, never per request. */
export class ConfigError extends oneCode("config_error", "ConfigError") {}
