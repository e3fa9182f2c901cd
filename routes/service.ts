/** @module Service routes: health and the offline docs page. */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Deps } from "../src/ports/mod.ts";
import { SimulacraError, VERSION } from "../src/domain/mod.ts";
import { readCronHeartbeat } from "../src/app/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { docsRoutes } from "./docs_page.ts";
import { errorResponses } from "./errors.ts";

const HealthCheck = z
  .object({
    status: z.enum(["ok", "failed", "local"]).meta({
      description: "local: nothing remote to reach (offline model, local embedder)",
    }),
    ms: z.number().optional(),
    message: z.string().optional().meta({ description: "Why the check failed" }),
  })
  .meta({ id: "HealthCheck" });
type HealthCheck = z.infer<typeof HealthCheck>;

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
    checks: z.record(z.enum(["store", "model", "embedder"]), HealthCheck).optional().meta({
      description: "With `deep=true`: each dependency's check",
    }),
  })
  .meta({ id: "Health" });

const HealthQuery = z.strictObject({
  deep: z.enum(["true", "false"]).optional().meta({
    description:
      "true: also check that the store answers and that the model and embedding endpoints accept the key (no tokens spent)",
  }),
});

const healthRoute = createRoute({
  method: "get",
  path: "/health",
  operationId: "getHealth",
  tags: ["Service"],
  summary: "Liveness, backends and model mode; with deep=true, a check of every dependency",
  description:
    "A cheap liveness check: the store answers. With `deep=true` it also lists the model and embedding endpoints' models (no tokens spent) and answers 503 naming the part that failed.",
  security: [],
  request: { query: HealthQuery },
  responses: {
    200: {
      description: "The service and its store answer (and, deep, every dependency)",
      content: { "application/json": { schema: Health } },
    },
    ...errorResponses(400, 503),
  },
});

/** Runs one check; a dependency with nothing remote to reach is `local`. */
async function check(probe: (() => Promise<void>) | undefined): Promise<HealthCheck> {
  if (!probe) return { status: "local" };
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    await probe();
    return { status: "ok", ms: ms() };
  } catch (err) {
    const message = err instanceof SimulacraError ? err.message : "unexpected error";
    return { status: "failed", ms: ms(), message };
  }
}

/** The store, the model endpoint and the embedding endpoint, checked at once. */
async function checkAll(deps: Deps): Promise<Record<"store" | "model" | "embedder", HealthCheck>> {
  const [store, model, embedder] = await Promise.all([
    check(() => deps.storage.ping()),
    check(deps.model.probe && (() => deps.model.probe!())),
    check(deps.embedder.probe && (() => deps.embedder.probe!())),
  ]);
  return { store, model, embedder };
}

/** `/health` and `/docs`. */
export function serviceRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();

  app.openapi(healthRoute, async (c) => {
    const checks = c.req.valid("query").deep === "true" ? await checkAll(deps) : undefined;
    const failed = Object.entries(checks ?? {}).filter(([, check]) => check.status === "failed");
    if (failed.length > 0) {
      const parts = failed.map(([part, check]) => `${part}: ${check.message}`).join("; ");
      throw new SimulacraError(
        "unhealthy",
        `Cannot serve requests: the ${
          failed.map(([part]) => part).join(" and ")
        } failed the check (${parts})`,
        { details: { failed: failed.map(([part]) => part), checks } },
      );
    }
    if (!checks) await deps.storage.ping();
    const cron = await readCronHeartbeat(deps);
    return c.json({
      status: "ok" as const,
      version: VERSION,
      storage: deps.storage.kind,
      model: { ...deps.model.info, embedding: deps.embedder.info.model },
      embedding: deps.embedder.info,
      cron,
      ...(checks ? { checks } : {}),
    }, 200);
  });

  app.route("/", docsRoutes());
  return app;
}
