/** @module The audit log: every write recorded after it is answered, and `GET /v1/audit` (admin). */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { z } from "zod";
import type { Deps } from "../src/ports/mod.ts";
import type { Logger } from "../lib/logger.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonContent } from "./_openapi.ts";

const keys = routeGroup("Keys");

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Appends under way, shared by {@linkcode auditWrites} and {@linkcode auditRoutes}: the entry is
 * written after the answer leaves (a store write costs the request a commit otherwise, 0.3–2 ms
 * on the embedded store and more on the hosted one), and `GET /v1/audit` waits for those under
 * way, so a client reading the log after its write sees it.
 */
export class AuditTrail {
  readonly #pending = new Set<Promise<unknown>>();

  /** Tracks `append` until it settles. */
  track(append: Promise<unknown>): Promise<unknown> {
    const tracked = append.finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
    return tracked;
  }

  /** Resolves once every append started so far has settled. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#pending]);
  }
}

/**
 * Records each /v1 write (refused ones too) once answered: method, route template, key id,
 * world, agent, status, request id and wall time. A POST that needs only the `read` permission
 * (retrieve, an events token) is a query, not a write: a game calls retrieve for every line an
 * agent speaks, and three audit keys kept for 30 days each would cost it more than the query. The entry is written after the answer is
 * returned (on Workers under `waitUntil`, so the isolate stays for it). A failing audit write is
 * logged, never turned into a failed request.
 */
export function auditWrites(
  deps: Pick<Deps, "storage">,
  options: { retentionDays: number; logger: Logger; trail: AuditTrail },
): MiddlewareHandler<AppEnv> {
  return async function auditMiddleware(c, next) {
    if (READS.has(c.req.method)) return await next();
    const started = performance.now();
    await next();
    const principal = c.get("principal");
    const operation = c.get("operation");
    if (operation?.rule?.need === "read") return;
    const append = deps.storage.audit.append({
      at: new Date().toISOString(),
      method: c.req.method,
      route: operation?.route ?? c.req.path.slice(0, 300),
      keyId: principal?.kind === "key" ? principal.key.id : null,
      worldId: operation?.params.world?.slice(0, 64) ?? null,
      agentId: operation?.params.agent?.slice(0, 64) ?? null,
      status: c.res.status,
      requestId: c.get("requestId"),
      ms: Math.round((performance.now() - started) * 10) / 10,
    }, { retentionDays: options.retentionDays }).catch((error) => {
      options.logger.log("warn", "audit entry not recorded", {
        requestId: c.get("requestId"),
        error,
      });
    });
    const tracked = options.trail.track(append);
    waitUntil(c, tracked);
  };
}

/** Whether the platform gave a context (Workers); asked once, as Hono throws when it did not. */
let platformContext: boolean | undefined;

/** Keeps a Workers isolate alive for `promise`; elsewhere (Deno) it simply runs. */
function waitUntil(c: Context<AppEnv>, promise: Promise<unknown>): void {
  if (platformContext === false) return;
  try {
    c.executionCtx.waitUntil(promise); // throws when the platform gave no context
    platformContext = true;
  } catch {
    platformContext = false;
  }
}

const AuditEntry = z.object({
  id: z.string(),
  at: z.string(),
  method: z.string(),
  route: z.string(),
  keyId: z.string().nullable(),
  worldId: z.string().nullable(),
  agentId: z.string().nullable(),
  status: z.number().int(),
  requestId: z.string(),
  ms: z.number(),
}).meta({ id: "AuditEntry" });

const AuditQuery = z.object({
  world: z.string().max(64).optional(),
  key: z.string().max(64).optional(),
  cursor: z.string().regex(/^[0-9]{15}-[0-9a-z]{4}[0-9a-f]{8}$/, "Use a cursor from a page")
    .optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

const auditRoute = keys.get("/audit", {
  middleware: requires("admin"),
  operationId: "listAudit",
  summary: "The audit log of writes, newest first, by world or key (admin only)",
  request: { query: AuditQuery },
  responses: {
    200: jsonContent(
      z.object({ entries: z.array(AuditEntry), cursor: z.string().nullable() }),
      "A page of entries; pass `cursor` for the next",
    ),
  },
  errors: [400, 401, 403, 503],
});

/** The `/v1/audit` route. */
export function auditRoutes(
  deps: Pick<Deps, "storage">,
  options: { retentionDays: number; trail: AuditTrail },
): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(auditRoute, async (c) => {
    const q = c.req.valid("query");
    await options.trail.settled();
    const page = await deps.storage.audit.list(
      { worldId: q.world, keyId: q.key, cursor: q.cursor, limit: q.limit },
      { retentionDays: options.retentionDays, now: Date.now() },
    );
    return c.json(page, 200);
  });
  return app;
}
