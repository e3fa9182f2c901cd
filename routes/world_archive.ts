/** @module World archive routes: export a world as NDJSON, import (or fork) one. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { ndjsonChunks, ndjsonLines } from "../lib/ndjson_lines.ts";
import { exportWorld, ImportResult, importWorld } from "../src/app/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import { SimulacraError, WorldId } from "../src/domain/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonContent } from "./_openapi.ts";

const worlds = routeGroup("Worlds");

/** The path whose body may be larger than the app-wide limit (it is read line by line). */
export const IMPORT_PATH = "/v1/worlds/import";

const Flag = z.enum(["true", "false"]).optional().transform((v) => v === "true");

const exportRoute = worlds.get("/worlds/{world}/export", {
  middleware: requires("read"),
  operationId: "exportWorld",
  summary: "Export a world as NDJSON (streamed)",
  description:
    "One JSON object per line: a header (format `simulacra.world` version 1, product version, embedder, counts), the world, its documents (agents, personas, plans, summaries, environment…), every memory with its embedding (base64 little-endian float32), the usage totals, with `events=true` the event log, and an end line with the counts written. Import it with `POST /v1/worlds/import`.",
  request: {
    query: z.object({ events: Flag.meta({ description: "Include the event log" }) }),
  },
  responses: {
    200: {
      description: "The archive, one JSON object per line",
      content: { "application/x-ndjson": { schema: z.string() } },
    },
  },
  errors: [400, 401, 403, 404, 503],
});

const importRoute = worlds.post("/worlds/import", {
  // An import may embed memories again.
  middleware: requires("admin", { model: true }),
  operationId: "importWorld",
  summary: "Import a world from an export (all or nothing); ?id= forks it under a new id",
  description:
    "The body is an export file (NDJSON), read line by line. The whole file is checked while it is read and nothing becomes visible before the end: a malformed, truncated or other-version file is a 400 naming the line (`details.line`), as is a line the JSON API would refuse (control characters in text: `details.path`), a zero or non-finite embedding, or a header whose counts are not the file's (`details.field`); an existing world id a 409, an archive made with another embedder a 422 unless `reembed=true` embeds the memories again.",
  request: {
    query: z.object({
      id: WorldId.optional().meta({ description: "Import under this id: a fork" }),
      reembed: Flag.meta({ description: "Embed memories again when the embedder differs" }),
    }),
  },
  responses: { 201: jsonContent(ImportResult, "The imported world") },
  errors: [400, 401, 403, 409, 422, 502, 503, 504],
});

/** The export and import routes. */
export function worldArchiveRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(exportRoute, async (c) => {
    const lines = exportWorld(deps, c.req.valid("param").world, c.req.valid("query"));
    // The first line is read before answering, so an unknown world is a plain 404.
    const first = await lines.next();
    const rest = (async function* () {
      if (!first.done) yield first.value;
      yield* lines;
    })();
    // Many lines to a chunk: one chunk per line cost the export more than making the lines.
    const chunks = ndjsonChunks(rest);
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
      async cancel() {
        await chunks.return(undefined);
        await lines.return(undefined);
      },
    });
    const response = new Response(body, {
      status: 200,
      headers: {
        "content-type": "application/x-ndjson",
        "content-disposition": `attachment; filename="${c.req.valid("param").world}.ndjson"`,
      },
    });
    // @hono/zod-openapi types "application/x-ndjson" as a JSON variant it cannot name (never).
    return response as never;
  });
  app.openapi(importRoute, async (c) => {
    // Read as a stream, line by line: any other type (JSON most of all, which the edge's text
    // checks would read whole first) is refused before a byte is taken.
    const type = c.req.header("content-type") ?? "";
    if (!/^application\/x-ndjson\b/i.test(type)) {
      throw new SimulacraError(
        "unsupported_media_type",
        `Cannot import a body of type "${
          type.slice(0, 60) || "none"
        }": send the export file as application/x-ndjson`,
      );
    }
    const stream = c.req.raw.body;
    if (stream === null) {
      throw new SimulacraError(
        "invalid_request",
        "Cannot import an empty body: send an export file (NDJSON)",
        { details: { line: 1 } },
      );
    }
    const result = await importWorld(deps, ndjsonLines(stream), c.req.valid("query"));
    return c.json(result, 201);
  });
  return app;
}
