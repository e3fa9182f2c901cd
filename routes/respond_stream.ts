/**
 * @module `POST …/respond` with `Accept: text/event-stream`: the reply streamed as the model
 * writes it (`delta` events), then one `done` event with the full response body.
 */
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { getWorld, loadAgent, respond, type RespondInput } from "../src/app/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import { type AgentId, SimulacraError, type WorldId } from "../src/domain/mod.ts";
import type { Logger } from "../lib/logger.ts";
import type { AppEnv } from "./app_env.ts";
import { errorBody, statusOf } from "./errors.ts";

/** Whether the caller asked for the streamed form. */
export function wantsStream(c: Context): boolean {
  return c.req.header("accept")?.includes("text/event-stream") ?? false;
}

/**
 * Streams one reply. The world and agent are checked first, so those errors are plain JSON
 * responses; once the stream has started, a failure is an `error` event with the usual error
 * body (and nothing was stored: the turn is stored only after the reply is complete).
 */
export async function streamRespond(
  c: Context<AppEnv>,
  deps: Deps,
  request: {
    worldId: WorldId;
    agentId: AgentId;
    input: RespondInput;
    /** The API key the message came with, stored on the memories it writes. */
    keyId?: string;
    logger?: Logger;
  },
): Promise<Response> {
  const { worldId, agentId, input, keyId } = request;
  await getWorld(deps, worldId);
  await loadAgent(deps, { worldId, agentId });
  return streamSSE(c, async (stream) => {
    let writes = Promise.resolve();
    const onWords = (text: string) => {
      writes = writes.then(() =>
        stream.writeSSE({ event: "delta", data: JSON.stringify({ text }) })
      );
    };
    try {
      const result = await respond(deps, { scope: { worldId, agentId }, input }, {
        onWords,
        keyId,
      });
      await writes;
      await stream.writeSSE({ event: "done", data: JSON.stringify(result) });
    } catch (err) {
      await writes.catch(() => undefined);
      const known = err instanceof SimulacraError;
      if (!known || statusOf[err.code] >= 500) {
        request.logger?.log("error", "streamed reply failed", {
          requestId: c.get("requestId"),
          code: known ? err.code : "internal_error",
          error: err,
        });
      }
      const body = known ? errorBody(err.code, err.message, err.details) : errorBody(
        "internal_error",
        `Cannot complete the reply because of an unexpected error: report request id "${
          c.get("requestId")
        }"`,
      );
      await stream.writeSSE({ event: "error", data: JSON.stringify(body) });
    }
  });
}
