/** @module Retry policy of the OpenAI clients: backoff with jitter, then one error with our code naming the server. */
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  type OpenAI,
  OpenAIError,
} from "openai";
import { ConfigError, ModelUnavailableError } from "../../src/domain/mod.ts";

/** How {@linkcode withRetries} waits between attempts. */
export interface RetryOptions {
  /**
   * Retries after the first attempt.
   * @default 3
   */
  maxRetries?: number;
  /**
   * The first backoff; each retry doubles it, up to `maxDelayMs`.
   * @default 500
   */
  baseDelayMs?: number;
  /**
   * The longest backoff between two attempts.
   * @default 8000
   */
  maxDelayMs?: number;
  /**
   * The longest wait a server's `retry-after` header may ask for.
   * @default 30000
   */
  maxRetryAfterMs?: number;
  /**
   * Waits; tests pass a fake that records the delays and returns at once.
   * @default a setTimeout-based sleep
   */
  sleep?: (ms: number) => Promise<void>;
  /**
   * The jitter source, a number in [0, 1).
   * @default Math.random
   */
  random?: () => number;
}

/** What {@linkcode withRetries} needs to name a failure. */
export interface WithRetriesOptions extends RetryOptions {
  /** The failed action for the error message, e.g. `Cannot complete prompt "importance"`. */
  action: string;
  /** The host of the OpenAI-compatible server, e.g. "api.openai.com". */
  host: string;
  /** The per-attempt timeout, quoted in timeout messages. */
  timeoutMs: number;
}

const DEFAULTS = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 30_000,
};

/**
 * Runs `operation` and retries it on timeouts, connection errors, 429 and 5xx, waiting with
 * exponential backoff and jitter, or as long as the server's `retry-after` asks (up to a cap).
 * Never retries other statuses (400, 401, 404, …).
 *
 * @param operation One attempt; receives the attempt number, starting at 1.
 * @throws {ModelUnavailableError} `model_timeout`, `rate_limited` or `model_unavailable` when
 * the last attempt fails or the failure cannot be retried (any OpenAI SDK error, e.g. an
 * unparseable response, ends as one of these). Errors that do not come from the SDK are
 * rethrown unchanged.
 *
 * @example
 * ```ts ignore
 * import { OpenAI } from "openai";
 * import { withRetries } from "./retry.ts";
 * const client = new OpenAI({ apiKey: "sk-…", maxRetries: 0, timeout: 30_000 });
 * const models = await withRetries(() => client.models.list(), {
 *   action: "Cannot list models",
 *   host: "api.openai.com",
 *   timeoutMs: 30_000,
 * });
 * ```
 */
export async function withRetries<T>(
  operation: (attempt: number) => Promise<T>,
  options: WithRetriesOptions,
): Promise<T> {
  const maxRetries = options.maxRetries ?? DEFAULTS.maxRetries;
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 1;; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!(error instanceof OpenAIError)) throw error;
      if (!isRetryable(error) || attempt > maxRetries) {
        throw toModelError(error, { ...options, attempts: attempt });
      }
      await sleep(retryDelayMs(error, attempt, options));
    }
  }
}

/**
 * Whether an SDK error is worth another attempt: timeouts, connection errors, 408, 429 and 5xx.
 * A caller's own abort is not.
 */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof APIError) || error instanceof APIUserAbortError) return false;
  if (error instanceof APIConnectionError) return true;
  const status = error.status ?? 0;
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The wait before retry number `retry` (1 for the first retry): the server's `retry-after-ms`
 * or `retry-after` header when present (capped at `maxRetryAfterMs`), else
 * `min(maxDelayMs, baseDelayMs · 2^(retry-1))` with "equal jitter" (half fixed, half random), so
 * that clients that failed together do not retry together.
 */
export function retryDelayMs(error: unknown, retry: number, options: RetryOptions = {}): number {
  const requested = retryAfterMs(error);
  if (requested !== undefined) {
    return Math.min(requested, options.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs);
  }
  const base = options.baseDelayMs ?? DEFAULTS.baseDelayMs;
  const cap = options.maxDelayMs ?? DEFAULTS.maxDelayMs;
  const backoff = Math.min(cap, base * 2 ** (retry - 1));
  const random = options.random ?? Math.random;
  return Math.round(backoff / 2 + random() * (backoff / 2));
}

/** The codes a failed model call can end with. */
export type ModelErrorCode = ConstructorParameters<typeof ModelUnavailableError>[0];

/** Describes a failed SDK call for {@linkcode toModelError}. */
export interface FailureContext {
  action: string;
  host: string;
  timeoutMs: number;
  attempts: number;
}

/**
 * Translates an OpenAI SDK error into a {@linkcode ModelUnavailableError}. The message names the
 * dependency and the HTTP status, never the server's own message (which may quote the API key
 * or the request); the original error stays as `cause`.
 */
export function toModelError(error: unknown, context: FailureContext): ModelUnavailableError {
  const server = `OpenAI-compatible model at "${context.host}"`;
  const tries = context.attempts === 1 ? "1 attempt" : `${context.attempts} attempts`;
  const status = error instanceof APIError ? error.status : undefined;
  const details = { dependency: "openai", host: context.host, status, attempts: context.attempts };
  const fail = (code: ModelErrorCode, reason: string) =>
    new ModelUnavailableError(code, `${context.action}: ${reason}`, { details, cause: error });

  if (error instanceof APIConnectionTimeoutError || status === 408) {
    return fail(
      "model_timeout",
      `${server} did not answer within ${context.timeoutMs} ms (${tries})`,
    );
  }
  if (error instanceof APIConnectionError) {
    return fail("model_unavailable", `cannot connect to ${server} (${tries})`);
  }
  switch (status) {
    case 429:
      return fail("rate_limited", `${server} is rate limiting requests (HTTP 429, ${tries})`);
    case 401:
    case 403:
      return fail(
        "model_unavailable",
        `${server} refused the API key (HTTP ${status}): check the configured key`,
      );
    case 404:
      return fail(
        "model_unavailable",
        `${server} does not know the model or the path (HTTP 404): check the model name and base URL`,
      );
  }
  return fail("model_unavailable", `${server} answered HTTP ${status ?? "error"} (${tries})`);
}

/** The longest the deep health check waits for an OpenAI-compatible endpoint. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * Lists the endpoint's models once, without retries: it answers, and accepts the key, without
 * spending tokens. Used by `GET /health?deep=true`.
 *
 * @throws {ModelUnavailableError} `model_unavailable` or `model_timeout` naming the host.
 */
export async function probeModels(
  client: Pick<OpenAI, "models">,
  context: Pick<FailureContext, "host" | "timeoutMs">,
): Promise<void> {
  const timeoutMs = Math.min(context.timeoutMs, PROBE_TIMEOUT_MS);
  try {
    await client.models.list({ timeout: timeoutMs, maxRetries: 0 });
  } catch (error) {
    throw toModelError(error, {
      action: "Cannot list the models",
      host: context.host,
      timeoutMs,
      attempts: 1,
    });
  }
}

/**
 * The host of a base URL, for error messages.
 *
 * @throws {ConfigError} `config_error` when the URL cannot be parsed.
 */
export function hostOf(baseURL: string, what: string): string {
  try {
    return new URL(baseURL).host;
  } catch (cause) {
    throw new ConfigError(
      `Cannot use the ${what} base URL: it is not a URL: set it to e.g. "https://api.openai.com/v1"`,
      { cause },
    );
  }
}

function retryAfterMs(error: unknown): number | undefined {
  if (!(error instanceof APIError) || !(error.headers instanceof Headers)) return undefined;
  const ms = Number.parseFloat(error.headers.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const header = error.headers.get("retry-after");
  if (header === null) return undefined;
  const seconds = Number.parseFloat(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
