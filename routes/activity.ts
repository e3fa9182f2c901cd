/** @module Records each world's API activity, so idle cron-mode worlds can pause themselves. */
import { IMPORT_PATH } from "./world_archive.ts";
import type { MiddlewareHandler } from "hono";
import type { Deps } from "../src/ports/mod.ts";
import { WorldId } from "../src/domain/mod.ts";
import { recordActivity } from "../src/app/mod.ts";
import type { Logger } from "../lib/logger.ts";
import type { AppEnv } from "./app_env.ts";

/** A world's activity is written at most this often per process: one write, not one per request. */
const WRITE_EVERY_MS = 30_000;

/** Records world activity: after requests (the middleware) and while event streams are open. */
export interface WorldActivity {
  middleware: MiddlewareHandler<AppEnv>;
  /** Someone is still using the world (e.g. an open event stream sent a keep-alive). */
  touch(worldId: WorldId, requestId?: string): Promise<void>;
}

/**
 * After a successful request on `/v1/worlds/{world}…`, records the world's activity at
 * `now()`; an open event stream keeps recording it through `touch`. A failed write is logged
 * and does not fail the request.
 */
export function worldActivity(
  deps: Pick<Deps, "storage">,
  options: { logger: Logger; now: () => number },
): WorldActivity {
  const written = new Map<string, number>();
  const touch = async (worldId: WorldId, requestId?: string) => {
    const now = options.now();
    if (now - (written.get(worldId) ?? -Infinity) < WRITE_EVERY_MS) return;
    written.set(worldId, now);
    if (written.size > 10_000) written.clear();
    try {
      await recordActivity(deps, worldId, now);
    } catch (err) {
      options.logger.log("warn", "cannot record world activity", { requestId, error: err });
    }
  };
  return {
    touch,
    async middleware(c, next) {
      await next();
      const parsed = WorldId.safeParse(c.req.param("world"));
      if (!parsed.success || c.res.status >= 400) return;
      // `/v1/worlds/import` names no world (the imported one records its activity when used).
      if (c.req.path === IMPORT_PATH) return;
      // A deleted world has no activity to keep (its record was just removed).
      if (c.req.method === "DELETE" && c.req.path === `/v1/worlds/${parsed.data}`) return;
      await touch(parsed.data, c.get("requestId"));
    },
  };
}
