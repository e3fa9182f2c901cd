/** @module Scene routes: the game's side of a conversation with a player (send a line, end it). */
import { OpenAPIHono } from "@hono/zod-openapi";
import { type AgentId, playerSpeaker } from "../src/domain/mod.ts";
import {
  endPlayerConversation,
  PlayerLineInput,
  PlayerTurnResult,
  sendPlayerLine,
} from "../src/app/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { routeGroup } from "./_route.ts";
import { jsonBody, jsonContent } from "./_openapi.ts";
import { ConversationParams } from "./conversations.ts";

const scenes = routeGroup("Cognition");

const lineRoute = scenes.post("/worlds/{world}/conversations/{conversation}/lines", {
  middleware: requires("talk", { model: true, agentScoped: true }),
  operationId: "sendPlayerLine",
  summary:
    "A player's line in an open conversation; answers the agents' lines that follow and whether it is still open",
  request: { params: ConversationParams, body: jsonBody(PlayerLineInput) },
  responses: { 200: jsonContent(PlayerTurnResult, "The agents' lines after the player's") },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 429, 502, 503, 504],
});

const endRoute = scenes.post("/worlds/{world}/conversations/{conversation}/end", {
  middleware: requires("talk", { agentScoped: true }),
  operationId: "endConversation",
  summary: "Close an open conversation with a player; the agents remember it and re-plan",
  request: { params: ConversationParams },
  responses: { 200: jsonContent(PlayerTurnResult, "The conversation, closed") },
  errors: [401, 403, 404, 409, 503],
});

/** The scene routes under `/v1`. */
export function sceneRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(lineRoute, async (c) => {
    const { world, conversation } = c.req.valid("param");
    const input = c.req.valid("json");
    const speaker = playerSpeaker(c.get("principal"), input.speaker);
    const at = { worldId: world, conversationId: conversation };
    return c.json(await sendPlayerLine(deps, at, { ...input, speaker: speaker as AgentId }), 200);
  });
  app.openapi(endRoute, async (c) => {
    const { world, conversation } = c.req.valid("param");
    return c.json(
      await endPlayerConversation(deps, { worldId: world, conversationId: conversation }),
      200,
    );
  });
  return app;
}
