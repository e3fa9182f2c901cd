/** @module The root Hono app: middleware, error model, OpenAPI document, and every router. */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { compress } from "hono/compress";
import { HTTPException } from "hono/http-exception";
import type { Deps, LanguageModel, TickQueue } from "../src/ports/mod.ts";
import { type RateLimitRule, SimulacraError, type WorldId } from "../src/domain/mod.ts";
import type { TownCatalog } from "../src/app/mod.ts";
import type { Logger } from "../lib/logger.ts";
import { type AppEnv, validationHook } from "./app_env.ts";
import { accessControl } from "./access.ts";
import { auditRoutes, AuditTrail, auditWrites } from "./audit.ts";
import { eventsTokenRoutes } from "./events_token.ts";
import { keyRoutes } from "./keys.ts";
import { textHygiene } from "./hygiene.ts";
import { hostGuard } from "./host.ts";
import { bodyTimeout } from "./request_body.ts";
import { meteredDeps } from "../lib/access/budget_meter.ts";
import { EventsTokens } from "../lib/access/events_token.ts";
import { corsMiddleware } from "./cors.ts";
import { worldActivity } from "./activity.ts";
import { queryGuard } from "./query_guard.ts";
import { errorBody, statusOf } from "./errors.ts";
import { declaredBodies, frameworkErrorResponse } from "./framework_errors.ts";
import { buildOpenApiDocument, withServer } from "./openapi_document.ts";
import { serviceRoutes } from "./service.ts";
import { adminRoutes } from "./admin.ts";
import { playgroundRoutes } from "./playground.ts";
import { agentRoutes } from "./agents.ts";
import { cognitionRoutes } from "./cognition.ts";
import { conversationRoutes } from "./conversations.ts";
import { sceneRoutes } from "./scenes.ts";
import { environmentRoutes } from "./environment.ts";
import { socialRoutes } from "./social.ts";
import { evaluationRoutes } from "./evaluation.ts";
import { OfflineJudge } from "../lib/offline/offline_judge.ts";
import { gameHookRoutes } from "./game_hooks.ts";
import { memoryRoutes } from "./memories.ts";
import { personaRoutes } from "./persona.ts";
import { planRoutes } from "./plans.ts";
import { worldEngineRoutes } from "./world_engine.ts";
import { worldRoutes } from "./worlds.ts";
import { IMPORT_PATH, worldArchiveRoutes } from "./world_archive.ts";

/** Options for {@linkcode createApp}. */
export interface AppOptions {
  /**
   * When set, every /v1 route needs `Authorization: Bearer <adminKey>` or an API key; unset,
   * everything is allowed to loopback `Host` names only.
   */
  adminKey?: string;
  /** The rate limit of keys without their own. @default 120 requests per 60 s */
  keyRateLimit?: RateLimitRule;
  /** Days audit entries are kept. @default 30 */
  auditRetentionDays?: number;
  /**
   * The header a trusted proxy sets to the client's address (first entry of a list), for the
   * failed-auth back-off. @default none: the connection's remote address (Deno.serve's), else
   * "unknown"
   */
  clientIpHeader?: string;
  /** Origins allowed to call from a browser (CORS); unset: none. */
  corsOrigins?: "*" | readonly string[];
  logger: Logger;
  /** Largest request body accepted. @default 4 MiB */
  maxBodyBytes?: number;
  /**
   * How long reads of a request body may wait for the client in all (a world import: between
   * two chunks) before the request is answered 408. @default 10 s
   */
  bodyTimeoutMs?: number;
  /** Makes request ids; injectable for tests. @default crypto.randomUUID */
  requestId?: () => string;
  /** Real time in ms, for world activity (idle pause); injectable for tests. @default Date.now */
  now?: () => number;
  /**
   * Called once an event stream (`GET …/events` as SSE) is over: its client went away and its
   * feed stopped. Tests wait on it instead of on the clock. @default none
   */
  onEventStreamEnd?: (worldId: WorldId) => void;
  /**
   * Compress answers (gzip or deflate, as `Accept-Encoding` asks), except event streams, which
   * must reach the client event by event. The Deno entry sets it; on Workers Cloudflare's edge
   * compresses. @default false
   */
  compress?: boolean;
  /** The platform's queue ticks send their steps through. @default none: steps run in the call */
  tickQueue?: TickQueue;
  /**
   * The ready-made towns `POST /v1/worlds` creates from a `template` (`services.ts` passes the
   * shipped ones). @default none: a `template` is refused with `invalid_request`
   */
  towns?: TownCatalog;
  /**
   * The judge evaluations ask (`…/evaluate`, `…/metrics`); its calls are reported apart from the
   * agent's and not metered against budgets. @default the offline rule-based judge
   */
  judge?: LanguageModel;
}

/** Builds the whole HTTP app over the given ports. */
export function createApp(unmetered: Deps, options: AppOptions): OpenAPIHono<AppEnv> {
  const { logger } = options;
  // Every model call made for a route adds to its world's and its key's budget counters.
  const deps = meteredDeps(unmetered);
  const retentionDays = options.auditRetentionDays ?? 30;
  const eventsTokens = new EventsTokens(
    options.adminKey ?? crypto.getRandomValues(new Uint32Array(8)).join("."),
  );
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const makeId = options.requestId ?? (() => crypto.randomUUID());

  // Event streams pass through as they are: hono's filter skips text/event-stream and chunked
  // answers.
  if (options.compress) app.use("*", compress());
  app.use("*", async function requestLog(c, next) {
    const started = performance.now();
    const requestId = c.req.header("x-request-id")?.slice(0, 64) || makeId();
    c.set("requestId", requestId);
    await next();
    const ms = performance.now() - started;
    c.header("x-request-id", requestId);
    // The server's own time for the request, so a client can tell it from the network's.
    c.header("Server-Timing", `app;dur=${ms.toFixed(2)}`);
    // A 5xx is a server fault: its line is an error, findable by the request id.
    logger.log(c.res.status >= 500 ? "error" : "info", "request", {
      requestId,
      method: c.req.method,
      path: c.req.path, // the path only: query strings may carry user text
      status: c.res.status,
      ms: Math.round(ms * 10) / 10,
    });
  });
  app.use("*", hostGuard());
  // Before auth: browsers send preflights without the Authorization header.
  if (options.corsOrigins) app.use("*", corsMiddleware(options.corsOrigins));
  const limitBody = bodyLimit({
    maxSize: options.maxBodyBytes ?? 4 * 1024 * 1024,
    onError: (c) =>
      c.json(
        errorBody(
          "payload_too_large",
          `Cannot accept a body over ${
            options.maxBodyBytes ?? 4 * 1024 * 1024
          } bytes: send fewer items per request`,
        ),
        413,
      ),
  });
  // Before anything reads a body, the body limit included.
  app.use(
    "*",
    bodyTimeout({
      timeoutMs: options.bodyTimeoutMs ?? 10_000,
      streamed: (path) => path === IMPORT_PATH,
    }),
  );
  // An import is read line by line, never whole: it is exempt from the body limit.
  app.use("*", (c, next) => c.req.path === IMPORT_PATH ? next() : limitBody(c, next));
  // Outside access control, so refused writes are audited too.
  const trail = new AuditTrail();
  app.use("/v1/*", auditWrites(deps, { retentionDays, logger, trail }));
  app.use(
    "/v1/*",
    accessControl(deps, {
      adminKey: options.adminKey,
      keyRateLimit: options.keyRateLimit ?? { requests: 120, perSeconds: 60 },
      clientAddress: (c) => clientAddress(c, options.clientIpHeader),
      eventsTokens,
      now: Date.now,
    }),
  );

  app.use("/v1/*", queryGuard(() => app.openAPIRegistry.definitions));
  const activity = worldActivity(deps, { logger, now: options.now ?? Date.now });
  app.use("/v1/worlds/:world", activity.middleware);
  app.use("/v1/worlds/:world/*", activity.middleware);
  app.use("/v1/*", textHygiene());

  app.route("/", serviceRoutes(deps));
  app.route("/", playgroundRoutes());
  app.route("/v1", adminRoutes(deps));
  app.route("/v1", worldArchiveRoutes(deps));
  app.route("/v1", worldRoutes(deps, { towns: options.towns ?? {} }));
  app.route("/v1", agentRoutes(deps));
  app.route("/v1", memoryRoutes(deps));
  app.route("/v1", environmentRoutes(deps));
  app.route("/v1", planRoutes(deps));
  app.route("/v1", personaRoutes(deps, { logger }));
  app.route("/v1", cognitionRoutes(deps));
  app.route("/v1", conversationRoutes(deps));
  app.route("/v1", socialRoutes(deps));
  app.route("/v1", evaluationRoutes(deps, { judge: options.judge ?? new OfflineJudge() }));
  app.route("/v1", gameHookRoutes(deps));
  app.route("/v1", sceneRoutes(deps));
  app.route(
    "/v1",
    worldEngineRoutes(deps, {
      onStreamAlive: activity.touch,
      onStreamEnd: options.onEventStreamEnd,
      tickQueue: options.tickQueue,
    }),
  );
  app.route("/v1", eventsTokenRoutes(deps, eventsTokens));
  app.route("/v1", keyRoutes(deps, { adminKeySet: options.adminKey !== undefined }));
  app.route("/v1", auditRoutes(deps, { retentionDays, trail }));

  app.openAPIRegistry.registerComponent("securitySchemes", "adminKey", {
    type: "http",
    scheme: "bearer",
    description:
      "SIMULACRA_ADMIN_KEY (everything) or an API key from POST /v1/keys (sk_sim_…, its permissions and scope), required on /v1 routes when the server has an admin key",
  });
  let document: ReturnType<typeof buildOpenApiDocument> | undefined;
  app.get("/openapi.json", (c) => {
    document ??= buildOpenApiDocument(app); // once, after every route is registered
    return c.json(withServer(document, new URL(c.req.url).origin));
  });

  app.notFound((c) =>
    c.json(
      errorBody(
        "route_not_found",
        `Cannot find route ${c.req.method} ${c.req.path}: see GET /openapi.json or /docs for the routes`,
      ),
      404,
    )
  );

  let bodies: ReturnType<typeof declaredBodies> | undefined;
  app.onError((err, c) => {
    if (err instanceof SimulacraError) {
      const status = statusOf[err.code];
      if (status >= 500) {
        logger.log("error", "request failed", {
          requestId: c.get("requestId"),
          code: err.code,
          error: err,
          cause: err.cause instanceof Error ? err.cause : undefined,
        });
      }
      // A busy tick says when to come back (409 at once instead of a long wait).
      const retry = (err.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      if (typeof retry === "number") c.header("Retry-After", String(retry));
      // The rest of the body may still come: the connection cannot serve another request.
      if (err.code === "request_timeout") c.header("Connection", "close");
      return c.json(errorBody(err.code, err.message, err.details), status);
    }
    if (err instanceof HTTPException) {
      if (err.status >= 500) {
        logger.log("error", "request failed", { requestId: c.get("requestId"), error: err });
      }
      bodies ??= declaredBodies(app.openAPIRegistry.definitions);
      return frameworkErrorResponse(err, c, bodies);
    }
    logger.log("error", "unexpected error", { requestId: c.get("requestId"), error: err });
    return c.json(
      errorBody(
        "internal_error",
        `Cannot complete the request because of an unexpected error: report request id "${
          c.get("requestId")
        }"`,
      ),
      500,
    );
  });
  return app;
}

/** Every /v1 operation of the app's OpenAPI document, as method and path. */
export function v1Operations(app: OpenAPIHono<AppEnv>): { method: string; route: string }[] {
  const doc = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "", version: "" } });
  return Object.entries(doc.paths ?? {}).flatMap(([route, item]) =>
    route.startsWith("/v1/")
      ? Object.keys(item ?? {})
        .filter((m) => ["get", "post", "put", "patch", "delete"].includes(m))
        .map((method) => ({ method: method.toUpperCase(), route }))
      : []
  );
}

/**
 * The client's address: the first entry of the trusted proxy's header when one is configured,
 * else the remote address Deno.serve passes as the handler's second argument (Hono's `c.env`).
 */
function clientAddress(c: Context, header: string | undefined): string {
  const forwarded = header ? c.req.header(header)?.split(",")[0].trim() : undefined;
  if (forwarded) return forwarded.slice(0, 64);
  const info = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return info?.remoteAddr?.hostname ?? "unknown";
}
