/** @module Service routes: health and the offline docs page. */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Deps } from "../src/deps.ts";
import { readCronHeartbeat } from "../src/engine/scheduled_tick.ts";
import { VERSION } from "../src/version.ts";
import type { AppEnv } from "./app_env.ts";
import { docsPage } from "./docs_page.ts";
import { errorResponses } from "./errors.ts";

const Health = z
  .object({
    status: z.literal("ok"),
    version: z.string(),
    storage: z.enum(["embedded", "upstash"]),
    model: z.object({
      mode: z.enum(["offline", "openai"]),
      main: z.string(),
      fast: z.string(),
      embedding: z.string(),
    }),
    embedding: z.object({
      mode: z.enum(["local", "openai"]),
      model: z.string(),
      dimensions: z.number().int(),
    }),
    cron: z.object({ lastScheduledAt: z.string(), runs: z.number().int() }).nullable(),
  })
  .meta({ id: "Health" });

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  tags: ["Service"],
  summary: "Liveness, backends and model mode",
  security: [],
  responses: {
    200: {
      description: "The service and its store answer",
      content: { "application/json": { schema: Health } },
    },
    ...errorResponses(503),
  },
});

/** `/health` and `/docs`. */
export function serviceRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();

  app.openapi(healthRoute, async (c) => {
    await deps.storage.ping();
    const cron = await readCronHeartbeat(deps);
    return c.json({
      status: "ok" as const,
      version: VERSION,
      storage: deps.storage.kind,
      model: { ...deps.model.info, embedding: deps.embedder.info.model },
      embedding: deps.embedder.info,
      cron,
    }, 200);
  });

  app.get("/docs", (c) => c.html(docsPage()));
  return app;
}
