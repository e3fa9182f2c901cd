/** @module Persona routes: the Narrative Schema, card import and export, in-character replies, interviews. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { Agent, keyIdOf, MemoryRecord, Persona } from "../src/domain/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import {
  applySpeakerPolicy,
  buildPersona,
  BuildPersonaInput,
  CharacterCardV2,
  exportCard,
  getPersona,
  importCard,
  ImportQuery,
  interview,
  InterviewInput,
  InterviewResult,
  putPersona,
  respond,
  RespondInput,
  RespondResult,
} from "../src/app/mod.ts";
import { parseCard } from "./card_body.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { agentScope, routeGroup } from "./_route.ts";
import { jsonBody, jsonContent } from "./_openapi.ts";
import { UsageBody } from "./_usage.ts";
import { streamRespond, wantsStream } from "./respond_stream.ts";
import type { Logger } from "../lib/logger.ts";
import { confusableSkeleton } from "../lib/confusables.ts";

const persona = routeGroup("Persona");
const agents = routeGroup("Agents");

const putPersonaRoute = persona.put("/worlds/{world}/agents/{agent}/persona", {
  middleware: requires("direct"),
  operationId: "setPersona",
  summary: "Set the agent's Narrative Schema persona (4–8 core traits, 1–12 scene facets)",
  request: { body: jsonBody(Persona) },
  responses: { 200: jsonContent(Persona, "The persona as stored") },
  errors: [400, 401, 403, 404, 413, 415, 503],
});

const getPersonaRoute = persona.get("/worlds/{world}/agents/{agent}/persona", {
  middleware: requires("read"),
  operationId: "getPersona",
  summary: "Read the agent's persona",
  responses: { 200: jsonContent(Persona, "The persona") },
  errors: [401, 403, 404, 503],
});

const BuiltPersona = z
  .object({ persona: Persona, saved: z.boolean(), usage: UsageBody })
  .meta({ id: "BuiltPersona" });

const buildPersonaRoute = persona.post("/worlds/{world}/agents/{agent}/persona/build", {
  middleware: requires("direct", { model: true }),
  operationId: "buildPersona",
  summary:
    "Derive a persona with the main model from a narrative, or from the agent's description and memories",
  request: { body: jsonBody(BuildPersonaInput) },
  responses: {
    200: jsonContent(BuiltPersona, "The derived persona (stored unless save is false)"),
  },
  errors: [400, 401, 403, 404, 413, 415, 429, 502, 503, 504],
});

const exportCardRoute = persona.get("/worlds/{world}/agents/{agent}/persona/card", {
  middleware: requires("manage"),
  operationId: "getPersonaCard",
  summary: "Export the agent as a Character Card V2 (our persona rides in extensions.simulacra)",
  responses: { 200: jsonContent(CharacterCardV2, "The card; creator_notes is always empty") },
  errors: [401, 403, 404, 503],
});

const ImportedAgent = Agent.extend({
  persona: Persona,
  seeds: z.array(MemoryRecord),
  lore: z.array(z.object({ name: z.string(), keys: z.array(z.string()), memoryId: z.string() })),
  card: z.object({
    spec: z.enum(["chara_card_v1", "chara_card_v2", "chara_card_v3"]),
    personaFrom: z.enum(["extension", "model"]),
  }),
  usage: UsageBody,
}).meta({ id: "ImportedAgent" });

const importRoute = agents.post("/worlds/{world}/agents/import", {
  middleware: requires("manage", { model: true }),
  operationId: "importAgent",
  summary:
    "Create an agent from a Character Card V2/V3: JSON, or a PNG with a ccv3/chara text chunk",
  description:
    "Send the card as the raw body with Content-Type application/json or image/png. Creator notes are dropped; the system prompt and post-history instructions are kept as untrusted character text.",
  request: {
    query: ImportQuery,
    body: {
      required: true,
      content: {
        "application/json": {
          schema: { type: "object", description: "A Character Card V2 or V3" },
          example: {
            spec: "chara_card_v2",
            spec_version: "2.0",
            data: {
              name: "Mira",
              description:
                "A lighthouse keeper on a windy island; quiet, observant, kind to strays.",
              personality: "patient, dry-humoured, superstitious about storms",
              first_mes: "Mind the steps, they're slick with salt.",
            },
          },
        },
        "image/png": { schema: { type: "string", format: "binary" } },
      },
    },
  },
  responses: { 201: jsonContent(ImportedAgent, "The agent, its persona, seeds and lorebook") },
  errors: [400, 401, 403, 404, 409, 413, 415, 429, 502, 503, 504],
});

const respondRoute = persona.post("/worlds/{world}/agents/{agent}/respond", {
  // The inner voice needs `direct` as well: the speaker policy checks it, as it sees the mode.
  middleware: requires("talk", { model: true }),
  operationId: "respond",
  summary:
    "An in-character reply (Magic-If: anchor, select, recall, bound, enact), with each stage reported",
  description:
    "With `Accept: text/event-stream` the reply streams as the model writes it: `delta` events (`{text}`: the next spoken words), then one `done` event whose data is the full response body (or an `error` event with the error body). The turn is stored once, after the reply is complete; nothing is stored when generation fails.",
  request: { body: jsonBody(RespondInput) },
  responses: {
    200: {
      description: "The reply, the facets and memories it used, and its stages",
      content: {
        "application/json": { schema: RespondResult },
        "text/event-stream": { schema: z.string() },
      },
    },
  },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 429, 502, 503, 504],
});

const interviewRoute = persona.post("/worlds/{world}/agents/{agent}/interview", {
  middleware: requires("talk", { model: true }),
  operationId: "interview",
  summary:
    "Run the interview battery (5 categories × 5 questions), optionally ablated; writes no memory",
  request: { body: jsonBody(InterviewInput) },
  responses: { 200: jsonContent(InterviewResult, "The transcript") },
  errors: [400, 401, 403, 404, 413, 415, 429, 502, 503, 504],
});

/** The persona routes under `/v1`. */
export function personaRoutes(
  deps: Deps,
  options: { logger?: Logger } = {},
): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(putPersonaRoute, async (c) => {
    const scope = agentScope(c.req.valid("param"));
    return c.json(await putPersona(deps, scope, c.req.valid("json")), 200);
  });
  app.openapi(
    getPersonaRoute,
    async (c) => c.json(await getPersona(deps, agentScope(c.req.valid("param"))), 200),
  );
  app.openapi(buildPersonaRoute, async (c) => {
    const scope = agentScope(c.req.valid("param"));
    return c.json(await buildPersona(deps, scope, c.req.valid("json")), 200);
  });
  app.openapi(
    exportCardRoute,
    async (c) => c.json(await exportCard(deps, agentScope(c.req.valid("param"))), 200),
  );
  app.openapi(importRoute, async (c) => {
    const card = parseCard(
      c.req.header("content-type") ?? "",
      new Uint8Array(await c.req.arrayBuffer()),
    );
    const imported = await importCard(deps, card, {
      worldId: c.req.valid("param").world,
      ...c.req.valid("query"),
    });
    const { agent, ...rest } = imported;
    return c.json({ ...agent, ...rest }, 201);
  });
  app.openapi(respondRoute, async (c) => {
    const scope = agentScope(c.req.valid("param"));
    const principal = c.get("principal");
    const input = await applySpeakerPolicy(deps, scope.worldId, {
      principal,
      input: c.req.valid("json"),
      skeleton: confusableSkeleton,
    });
    const keyId = keyIdOf(principal);
    if (wantsStream(c)) {
      return await streamRespond(c, deps, { ...scope, input, keyId, logger: options.logger });
    }
    return c.json(await respond(deps, { scope, input }, { keyId }), 200);
  });
  app.openapi(interviewRoute, async (c) => {
    const scope = agentScope(c.req.valid("param"));
    return c.json(await interview(deps, scope, c.req.valid("json")), 200);
  });
  return app;
}
