/** @module `POST …/events/token`: a short-lived, read-only token for a browser's EventSource. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Deps } from "../src/ports/mod.ts";
import { getWorld } from "../src/app/mod.ts";
import { type EventsTokens, MAX_EVENTS_TOKEN_SECONDS } from "../lib/access/events_token.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonContent } from "./_openapi.ts";

const worlds = routeGroup("Worlds");

const TokenInput = z.strictObject({
  ttlSeconds: z.number().int().min(10).max(MAX_EVENTS_TOKEN_SECONDS).default(
    MAX_EVENTS_TOKEN_SECONDS,
  ).meta({ description: "How long the token lives (at most 600 s)" }),
}).meta({ id: "EventsTokenInput", example: { ttlSeconds: 300 } });

const EventsToken = z.object({
  token: z.string().meta({ description: "Pass as GET …/events?token=…" }),
  expiresAt: z.string().meta({ description: "Wall-clock ISO time" }),
}).meta({ id: "EventsToken" });

const tokenRoute = worlds.post("/worlds/{world}/events/token", {
  middleware: requires("read"),
  operationId: "createEventsToken",
  summary:
    "Mint a short-lived (≤ 10 min) token that reads this world's events (EventSource cannot send headers)",
  request: {
    body: { required: false, content: { "application/json": { schema: TokenInput } } },
  },
  responses: {
    200: jsonContent(
      EventsToken,
      "The token; it stops working when it expires or its key is revoked",
    ),
  },
  errors: [400, 401, 403, 404, 503],
});

/** The events token route under `/v1`. */
export function eventsTokenRoutes(
  deps: Pick<Deps, "storage">,
  tokens: EventsTokens,
): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(tokenRoute, async (c) => {
    const { world } = c.req.valid("param");
    await getWorld(deps, world);
    const principal = c.get("principal");
    const ttl = c.req.valid("json")?.ttlSeconds ?? MAX_EVENTS_TOKEN_SECONDS;
    const expiresAt = Date.now() + ttl * 1000;
    const token = await tokens.mint({
      worldId: world,
      keyId: principal.kind === "key" ? principal.key.id : null,
      expiresAt,
    });
    return c.json({ token, expiresAt: new Date(expiresAt).toISOString() }, 200);
  });
  return app;
}
