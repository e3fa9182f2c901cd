/**
 * @module Request bodies that do not arrive. A client that sends half a body and waits would hold
 * its request open for ever (Deno.serve has no timeout of its own), and one that closes the
 * connection early made the read throw: every read of the body goes through a guard that
 * answers the first with 408 `request_timeout` and the second with 400 `invalid_request`.
 *
 * The timeout counts only time spent waiting for the client's bytes, never the server's own work
 * between reads: a body must arrive within it in all, and a streamed world import (larger than
 * any other body, read while its lines are stored) must never stall that long between chunks.
 */
import type { MiddlewareHandler } from "hono";
import { SimulacraError } from "../src/domain/mod.ts";

/** Options of {@linkcode bodyTimeout}. */
export interface BodyTimeoutOptions {
  /** How long reads of one body may wait for the client, in all (ms). */
  timeoutMs: number;
  /** Whether the request's body is streamed, so the timeout applies to each read instead. */
  streamed: (path: string) => boolean;
}

/** The middleware for every route; it must come before anything reads a body. */
export function bodyTimeout(options: BodyTimeoutOptions): MiddlewareHandler {
  return async function bodyTimeoutMiddleware(c, next) {
    const body = c.req.raw.body;
    // A GET or HEAD body is never read (nor can a Request be made with one).
    if (body !== null && c.req.method !== "GET" && c.req.method !== "HEAD") {
      const { url, method, headers } = c.req.raw;
      const length = Number(headers.get("content-length") ?? NaN);
      if (!options.streamed(c.req.path) && length <= WHOLE_BODY_BYTES) {
        // A small body of known length is read at once, under one timer: wrapping it in a
        // guarded stream cost a request a tenth of a millisecond (issue 25).
        const bytes = await readWhole(body, options.timeoutMs);
        c.req.raw = new Request(url, { method, headers, body: bytes });
        return await next();
      }
      const guarded = guardBody(body, {
        timeoutMs: options.timeoutMs,
        perRead: options.streamed(c.req.path),
      });
      // Not `new Request(raw, …)`: that copies the signal, whose legacy abort Deno warns of.
      c.req.raw = new Request(
        url,
        { method, headers, body: guarded, duplex: "half" } as RequestInit,
      );
    }
    await next();
  };
}

/** The error of a request whose body stopped arriving. */
function timedOut(timeoutMs: number): SimulacraError {
  return new SimulacraError(
    "request_timeout",
    `Cannot wait longer for the request body: it did not arrive within ${
      timeoutMs / 1000
    } s (SIMULACRA_BODY_TIMEOUT_MS); send it whole, without pausing`,
  );
}

/** Bodies up to this many bytes (by Content-Length) are read whole before the routes run. */
const WHOLE_BODY_BYTES = 256 * 1024;

/** The whole body, or `request_timeout` once reading it has taken `timeoutMs` in all. */
async function readWhole(
  body: ReadableStream<Uint8Array>,
  timeoutMs: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const reader = body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<"expired">((resolve) => {
    timer = setTimeout(() => resolve("expired"), timeoutMs);
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (true) {
      const read = await Promise.race([reader.read(), expired]);
      if (read === "expired") {
        reader.cancel().catch(() => {});
        throw timedOut(timeoutMs);
      }
      if (read.done) break;
      chunks.push(read.value);
      size += read.value.length;
    }
  } catch (err) {
    if (err instanceof SimulacraError) throw err;
    throw brokenBody(err);
  } finally {
    clearTimeout(timer);
  }
  const whole = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.length;
  }
  return whole;
}

/** The error of a body whose connection closed before all of it arrived. */
function brokenBody(cause: unknown): SimulacraError {
  return new SimulacraError(
    "invalid_request",
    "Cannot read the request body: the connection closed before all of it arrived (shorter than its Content-Length, or a broken chunk)",
    { cause },
  );
}

function guardBody(
  body: ReadableStream<Uint8Array>,
  { timeoutMs, perRead }: { timeoutMs: number; perRead: boolean },
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let waited = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const allowed = perRead ? timeoutMs : timeoutMs - waited;
      const started = performance.now();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<"expired">((resolve) => {
        timer = setTimeout(() => resolve("expired"), allowed);
      });
      try {
        const read = await Promise.race([reader.read(), expired]);
        if (read === "expired") {
          reader.cancel().catch(() => {});
          controller.error(timedOut(timeoutMs));
        } else if (read.done) controller.close();
        else controller.enqueue(read.value);
      } catch (err) {
        controller.error(brokenBody(err));
      } finally {
        clearTimeout(timer);
        waited += performance.now() - started;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}
