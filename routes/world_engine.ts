/** @module World engine routes: change a world's clock and settings, tick it, read its events (JSON or SSE). */
import { OpenAPIHono } from "@hono/zod-openapi";
import { streamSSE } from "hono/streaming";
import { z } from "zod";
import type { Deps, TickQueue } from "../src/ports/mod.ts";
import { TickInput, UpdateWorldInput, World, type WorldId } from "../src/domain/mod.ts";
import {
  eventFilter,
  EventPage,
  EventsQuery,
  followEvents,
  listEvents,
  readTick,
  startSeq,
  startTick,
  TickResult,
  TickStatus,
  tickWorld,
  updateWorld,
} from "../src/app/mod.ts";
import { utcDay } from "../lib/access/budget_meter.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonBody, jsonContent, WorldParams } from "./_openapi.ts";

const worlds = routeGroup("Worlds");

const patchWorldRoute = worlds.patch("/worlds/{world}", {
  middleware: requires("manage"),
  operationId: "updateWorld",
  summary: "Rename a world, change its tick length or settings, pause or resume it",
  description:
    "Settings are merged: only the fields sent change. The game time itself moves only by ticks.",
  request: { body: jsonBody(UpdateWorldInput) },
  responses: { 200: jsonContent(World, "The world as stored now") },
  errors: [400, 401, 403, 404, 409, 413, 415, 503],
});

const TickQuery = z.object({
  wait: z.enum(["true", "false"]).optional().meta({
    description:
      "false: answer 202 with the tick id as soon as the steps are queued (needs the platform queue; without it the tick runs before answering)",
  }),
});

const tickRoute = worlds.post("/worlds/{world}/tick", {
  middleware: requires("simulate", { model: true, pastWorldBudget: true }),
  operationId: "tick",
  summary: "Advance the clock and step every agent: perceive, react or talk, act and move, reflect",
  description:
    "A repeated `tickId` (also sent concurrently) returns the first result and advances once; ticks with distinct ids run one after another. The body may be left out.",
  request: {
    query: TickQuery,
    body: { required: false, content: { "application/json": { schema: TickInput } } },
  },
  responses: {
    200: jsonContent(TickResult, "The clock after the tick and what each agent did"),
    202: jsonContent(TickStatus, "With `wait=false`: the tick is queued; read it by its id"),
  },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 503],
});

const TickIdParams = WorldParams.extend({
  tickId: z.string().min(1).max(200).meta({
    param: { name: "tickId", in: "path" },
    example: "t-0001",
  }),
});

const tickStatusRoute = worlds.get("/worlds/{world}/ticks/{tickId}", {
  middleware: requires("read"),
  operationId: "getTick",
  summary: "A tick's state: running, or done with its result",
  description:
    "For ticks started with `wait=false` (or by the cron). A tick whose first run failed answers its error.",
  request: { params: TickIdParams },
  responses: { 200: jsonContent(TickStatus, "Running, or done with the result") },
  errors: [401, 403, 404, 409, 503],
});

const LastEventId = z.object({
  "last-event-id": z.string().regex(/^\d{1,15}$/, "Last-Event-ID is an event seq").optional().meta(
    {
      param: { name: "last-event-id", in: "header" },
      description: "With SSE: resume after this seq (takes precedence over `after`)",
    },
  ),
});

const eventsRoute = worlds.get("/worlds/{world}/events", {
  middleware: requires("read", { eventsToken: true }),
  operationId: "listEvents",
  summary:
    "The world's event log: a JSON page, or a live SSE stream with Accept: text/event-stream",
  description:
    "Each SSE message has `event` = the event's type, `id` = seq and `data` = the event as JSON; comments keep idle streams alive. The stream ends when the client disconnects. `from=latest` skips the history; `agent` and `type` filter both the page and the stream.",
  request: {
    query: EventsQuery.extend({
      token: z.string().max(1000).optional().meta({
        description:
          "An events token from POST …/events/token, instead of the Authorization header (for EventSource)",
      }),
    }),
    headers: LastEventId,
  },
  responses: {
    200: {
      description: "Events oldest first, or a live stream of them",
      content: {
        "application/json": { schema: EventPage },
        "text/event-stream": { schema: z.string() },
      },
    },
  },
  errors: [400, 401, 403, 404, 503],
});

/** The world engine routes under `/v1`. */
export function worldEngineRoutes(
  deps: Deps,
  options: {
    onStreamAlive?: (worldId: WorldId, requestId?: string) => Promise<void>;
    /** Called once an event stream is over: its client went away and its feed stopped. */
    onStreamEnd?: (worldId: WorldId) => void;
    /** The platform's queue ticks send their steps through; without it they run in the call. */
    tickQueue?: TickQueue;
  } = {},
): OpenAPIHono<AppEnv> {
  const queue = options.tickQueue;
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(patchWorldRoute, async (c) => {
    const { world } = c.req.valid("param");
    return c.json(await updateWorld(deps, world, c.req.valid("json")), 200);
  });
  app.openapi(tickRoute, async (c) => {
    const { world } = c.req.valid("param");
    const input = c.req.valid("json") ?? {};
    const principal = c.get("principal");
    // The key's budget was checked before the route; its steps check it again as they start.
    const billing = {
      day: utcDay(Date.now()),
      ...(principal.kind === "key"
        ? { key: { id: principal.key.id, budget: principal.key.budget } }
        : {}),
    };
    if (c.req.valid("query").wait === "false" && queue) {
      const planned = await startTick(deps, world, { ...input, ...billing, queue });
      if (planned.status === "done") {
        return c.json(
          { tickId: planned.tickId, status: "done" as const, result: planned.result },
          202,
        );
      }
      return c.json({ tickId: planned.tickId, status: "running" as const }, 202);
    }
    return c.json(await tickWorld(deps, world, { ...input, ...billing, queue }), 200);
  });
  app.openapi(tickStatusRoute, async (c) => {
    const { world, tickId } = c.req.valid("param");
    return c.json(await readTick(deps, world, tickId), 200);
  });
  app.openapi(eventsRoute, async (c) => {
    const { world } = c.req.valid("param");
    const { token: _token, ...query } = c.req.valid("query");
    if (!c.req.header("accept")?.includes("text/event-stream")) {
      return c.json(await listEvents(deps, world, query), 200);
    }
    const resumeAt = c.req.valid("header")["last-event-id"];
    const stop = new AbortController();
    const after = resumeAt ? Number(resumeAt) : await startSeq(deps, world, query);
    const feed = await followEvents(deps, world, {
      after,
      signal: stop.signal,
      filter: eventFilter(query),
    });
    return streamSSE(c, async (stream) => {
      stream.onAbort(() => stop.abort());
      try {
        for await (const batch of feed) {
          // Someone is watching: an idle-pausing world stays running while its stream is open.
          await options.onStreamAlive?.(world, c.get("requestId"));
          if (batch.length === 0) await stream.write(": keep-alive\n\n");
          for (const event of batch) {
            await stream.writeSSE({
              event: event.type,
              id: String(event.seq),
              data: JSON.stringify(event),
            });
          }
        }
      } finally {
        options.onStreamEnd?.(world);
      }
    });
  });
  return app;
}
