/** @module Tests of the shared retry policy of the OpenAI clients. */
import assert from "node:assert/strict";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
} from "openai";
import { isRetryable, retryDelayMs, toModelError, withRetries } from "../../../lib/openai/retry.ts";
import { ModelUnavailableError } from "../../../src/domain/errors.ts";

function httpError(status: number, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { error: { message: "boom" } }, undefined, new Headers(headers));
}

const context = { action: "Cannot do it", host: "models.example:443", timeoutMs: 1000 };

Deno.test("isRetryable() retries timeouts, connection errors, 408, 429 and 5xx only", () => {
  assert.equal(isRetryable(new APIConnectionTimeoutError()), true);
  assert.equal(isRetryable(new APIConnectionError({ message: "refused" })), true);
  for (const status of [408, 429, 500, 502, 503]) {
    assert.equal(isRetryable(httpError(status)), true);
  }
  for (const status of [400, 401, 403, 404, 422]) {
    assert.equal(isRetryable(httpError(status)), false);
  }
  assert.equal(isRetryable(new APIUserAbortError()), false);
  assert.equal(isRetryable(new TypeError("bug")), false);
});

Deno.test("retryDelayMs() doubles the backoff with equal jitter up to the cap", () => {
  const error = httpError(503);
  assert.equal(retryDelayMs(error, 1, { random: () => 0 }), 250);
  assert.equal(retryDelayMs(error, 1, { random: () => 0.999999 }), 500);
  assert.equal(retryDelayMs(error, 3, { random: () => 0 }), 1000);
  assert.equal(retryDelayMs(error, 10, { random: () => 0, maxDelayMs: 4000 }), 2000);
});

Deno.test("retryDelayMs() honours retry-after-ms, retry-after seconds and dates, capped", () => {
  assert.equal(retryDelayMs(httpError(429, { "retry-after-ms": "1500" }), 1), 1500);
  assert.equal(retryDelayMs(httpError(429, { "retry-after": "2" }), 1), 2000);
  assert.equal(retryDelayMs(httpError(429, { "retry-after": "120" }), 1), 30_000);
  assert.equal(
    retryDelayMs(httpError(429, { "retry-after": "5" }), 1, { maxRetryAfterMs: 1000 }),
    1000,
  );
  const soon = new Date(Date.now() + 60_000).toUTCString();
  const delay = retryDelayMs(httpError(429, { "retry-after": soon }), 1, {
    maxRetryAfterMs: 120_000,
  });
  assert.ok(delay > 50_000 && delay <= 60_000, String(delay));
});

Deno.test("toModelError() maps timeouts, 429 and other failures to our codes", () => {
  const attempts = { ...context, attempts: 4 };
  assert.equal(toModelError(new APIConnectionTimeoutError(), attempts).code, "model_timeout");
  assert.equal(toModelError(httpError(408), attempts).code, "model_timeout");
  assert.equal(toModelError(httpError(429), attempts).code, "rate_limited");
  assert.equal(toModelError(httpError(500), attempts).code, "model_unavailable");
  assert.equal(toModelError(new OpenAIError("odd"), attempts).code, "model_unavailable");
  const error = toModelError(httpError(503), attempts);
  assert.equal(
    error.message,
    'Cannot do it: OpenAI-compatible model at "models.example:443" answered HTTP 503 (4 attempts)',
  );
  assert.ok(!error.message.includes("boom"), "the server's own message stays in the cause");
  assert.ok(error.cause instanceof APIError);
});

Deno.test("withRetries() stops at maxRetries and rethrows errors that are not the SDK's", async () => {
  let calls = 0;
  const sleeps: number[] = [];
  await assert.rejects(
    withRetries(() => {
      calls++;
      return Promise.reject(httpError(502));
    }, { ...context, maxRetries: 2, sleep: (ms) => (sleeps.push(ms), Promise.resolve()) }),
    (error: unknown) =>
      error instanceof ModelUnavailableError && error.code === "model_unavailable",
  );
  assert.equal(calls, 3);
  assert.equal(sleeps.length, 2);

  const bug = new TypeError("a bug of ours");
  await assert.rejects(withRetries(() => Promise.reject(bug), context), (e) => e === bug);
});
