/** @module The root Hono app: middleware, error model, OpenAPI document, and every router. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { Deps } from "../src/deps.ts";
import { SimulacraError } from "../src/errors.ts";
import type { Logger } from "../lib/logger.ts";
import { type AppEnv, validationHook } from "./app_env.ts";
import { adminAuth } from "./auth.ts";
import { corsMiddleware } from "./cors.ts";
import { worldActivity } from "./activity.ts";
import { queryGuard } from "./query_guard.ts";
import { errorBody, statusOf } from "./errors.ts";
import { declaredBodies, frameworkErrorResponse } from "./framework_errors.ts";
import { buildOpenApiDocument, withServer } from "./openapi_document.ts";
import { serviceRoutes } from "./service.ts";
import { playgroundRoutes } from "./playground.ts";
import { agentRoutes } from "./agents.ts";
import { cognitionRoutes } from "./cognition.ts";
import { conversationRoutes } from "./conversations.ts";
import { environmentRoutes } from "./environment.ts";
import { memoryRoutes } from "./memories.ts";
import { personaRoutes } from "./persona.ts";
import { planRoutes } from "./plans.ts";
import { worldEngineRoutes } from "./world_engine.ts";
import { worldRoutes } from "./worlds.ts";

/** Options for {@linkcode createApp}. */
export interface AppOptions {
  /** When set, every /v1 route needs `Authorization: Bearer <adminKey>`. */
  adminKey?: string;
  /** Origins allowed to call from a browser (CORS); unset: none. */
  corsOrigins?: "*" | readonly string[];
  logger: Logger;
  /** Largest request body accepted. @default 4 MiB */
  maxBodyBytes?: number;
  /** Makes request ids; injectable for tests. @default crypto.randomUUID */
  requestId?: () => string;
  /** Real time in ms, for world activity (idle pause); injectable for tests. @default Date.now */
  now?: () => number;
}

/** Builds the whole HTTP app over the given ports. */
export function createApp(deps: Deps, options: AppOptions): OpenAPIHono<AppEnv> {
  const { logger } = options;
  const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
  const makeId = options.requestId ?? (() => crypto.randomUUID());

  app.use("*", async function requestLog(c, next) {
    const started = performance.now();
    const requestId = c.req.header("x-request-id")?.slice(0, 64) || makeId();
    c.set("requestId", requestId);
    await next();
    c.header("x-request-id", requestId);
    // A 5xx is a server fault: its line is an error, findable by the request id.
    logger.log(c.res.status >= 500 ? "error" : "info", "request", {
      requestId,
      method: c.req.method,
      path: c.req.path, // the path only: query strings may carry user text
      status: c.res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    });
  });
  // Before auth: browsers send preflights without the Authorization header.
  if (options.corsOrigins) app.use("*", corsMiddleware(options.corsOrigins));
  app.use(
    "*",
    bodyLimit({
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
    }),
  );
  app.use("/v1/*", adminAuth(options.adminKey));
  app.use("/v1/*", queryGuard(() => app.openAPIRegistry.definitions));
  const activity = worldActivity(deps, { logger, now: options.now ?? Date.now });
  app.use("/v1/worlds/:world", activity.middleware);
  app.use("/v1/worlds/:world/*", activity.middleware);

  app.route("/", serviceRoutes(deps));
  app.route("/", playgroundRoutes());
  app.route("/v1", worldRoutes(deps));
  app.route("/v1", agentRoutes(deps));
  app.route("/v1", memoryRoutes(deps));
  app.route("/v1", environmentRoutes(deps));
  app.route("/v1", planRoutes(deps));
  app.route("/v1", personaRoutes(deps, { logger }));
  app.route("/v1", cognitionRoutes(deps));
  app.route("/v1", conversationRoutes(deps));
  app.route("/v1", worldEngineRoutes(deps, { onStreamAlive: activity.touch }));

  app.openAPIRegistry.registerComponent("securitySchemes", "adminKey", {
    type: "http",
    scheme: "bearer",
    description: "SIMULACRA_ADMIN_KEY, required on /v1 routes when the server has one",
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
