/** @module Conversation routes: start a conversation between two agents, and react to observations. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { Conversation, ConversationResult, StartConversationInput } from "../src/domain/mod.ts";
import {
  react,
  ReactInput,
  ReactionResult,
  readConversation,
  startConversation,
} from "../src/app/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonBody, jsonContent, WorldParams } from "./_openapi.ts";

const cognition = routeGroup("Cognition");

/** The path parameters of one conversation. */
export const ConversationParams = WorldParams.extend({
  conversation: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, "A conversation id").meta({
    param: { name: "conversation", in: "path" },
    example: "c_0mwto7qeg000024ga",
  }),
});

const conversationRoute = cognition.post("/worlds/{world}/conversations", {
  middleware: requires("simulate", { model: true }),
  operationId: "startConversation",
  summary:
    "Two to eight agents talk until nobody has more to say or the turn cap; all remember every line, nearby agents overhear; with a player it opens and waits",
  request: { body: jsonBody(StartConversationInput) },
  responses: {
    200: jsonContent(ConversationResult, "The transcript, who ended it, and what it cost"),
  },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 429, 502, 503, 504],
});

const getConversationRoute = cognition.get("/worlds/{world}/conversations/{conversation}", {
  operationId: "getConversation",
  // Not agent-scoped: a conversation may involve agents outside a scoped key's list.
  middleware: requires("read"),
  summary: "Read a conversation with every line (the id comes from a conversation event)",
  request: { params: ConversationParams },
  responses: { 200: jsonContent(Conversation, "The stored conversation") },
  errors: [400, 401, 403, 404, 503],
});

const reactRoute = cognition.post("/worlds/{world}/agents/{agent}/react", {
  middleware: requires("simulate", { model: true }),
  operationId: "react",
  summary:
    "Decide whether an agent carries on, reacts (re-plans) or talks to the observed agent; vetoes cost no model call",
  request: { body: jsonBody(ReactInput) },
  responses: {
    200: jsonContent(ReactionResult, "The decision, with the conversation when it talked"),
  },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 429, 502, 503, 504],
});

/** The conversation and reaction routes under `/v1`. */
export function conversationRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(conversationRoute, async (c) => {
    const { world } = c.req.valid("param");
    return c.json(await startConversation(deps, world, c.req.valid("json")), 200);
  });
  app.openapi(getConversationRoute, async (c) => {
    const { world, conversation } = c.req.valid("param");
    return c.json(await readConversation(deps, world, conversation), 200);
  });
  app.openapi(reactRoute, async (c) => {
    const { world, agent } = c.req.valid("param");
    return c.json(await react(deps, { worldId: world, agentId: agent }, c.req.valid("json")), 200);
  });
  return app;
}
