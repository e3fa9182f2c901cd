/** @module Relationship, mood and lore routes (issue 22): read what an agent feels, set what the world knows. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import type { Deps } from "../src/ports/mod.ts";
import { MAX_LORE_ENTRIES, WorldLoreEntry } from "../src/domain/mod.ts";
import { getLore, getRelationship, listRelationships, putLore } from "../src/app/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { agentScope, routeGroup } from "./_route.ts";
import { AgentParams, jsonBody, jsonContent } from "./_openapi.ts";

const agents = routeGroup("Agents");
const worlds = routeGroup("Worlds");

/** One relationship as the API answers it. */
export const RelationshipBody = z.object({
  with: z.string().meta({ description: "The other agent's id, or the speaker's name" }),
  name: z.string(),
  kind: z.enum(["agent", "speaker"]),
  familiarity: z.number().int().meta({
    description: "Interactions: things they said or did to the agent",
  }),
  closeness: z.number().min(0).max(1),
  trust: z.number().min(-1).max(1),
  affinity: z.number().min(-1).max(1),
  summary: z.string().meta({
    description:
      "The agent's last reflection about them, or what the numbers say until it reflects",
  }),
  evidence: z.array(z.string()).meta({ description: "The memories that moved it, newest last" }),
  updatedAt: z.string(),
}).meta({
  id: "Relationship",
  example: {
    with: "Mara",
    name: "Mara",
    kind: "speaker",
    familiarity: 2,
    closeness: 0.096,
    trust: 0.5,
    affinity: 0.5,
    summary: "Brom has dealt with Mara 2 times; feels warmly toward them and trusts them.",
    evidence: ["m_01", "m_02"],
    updatedAt: "2023-02-13T09:00:00",
  },
});

/** The mood the agent view carries. */
export const MoodBody = z.object({
  valence: z.number().min(-1).max(1),
  arousal: z.number().min(0).max(1),
  label: z.string().meta({ example: "content" }),
  since: z.string(),
  evidence: z.array(z.string()).meta({ description: "The memories that set the current mood" }),
}).meta({
  id: "Mood",
  example: {
    valence: -0.42,
    arousal: 0.61,
    label: "upset",
    since: "2023-02-13T09:10:00",
    evidence: ["m_03"],
  },
  description:
    "Moved by important memories, drifting back to the persona's baseline over game hours",
});

const LoreList = z.object({ entries: z.array(WorldLoreEntry) }).meta({ id: "Lore" });

const LoreBody = z.object({
  entries: z.array(z.unknown()).max(MAX_LORE_ENTRIES).meta({
    description:
      "LoreEntry items (see the Lore schema); each is checked and a bad one answers 422 with details.index",
  }),
}).meta({
  id: "LoreInput",
  example: {
    entries: [
      {
        id: "mill",
        keys: ["mill"],
        content: "The old mill by the river has stood empty since the flood.",
        knownBy: "all",
      },
      {
        id: "mill-secret",
        keys: ["mill"],
        content: "A smugglers' tunnel runs from the mill cellar to the river.",
        knownBy: ["brom"],
        minTrust: 0.3,
      },
    ],
  },
});

const OtherParams = AgentParams.extend({
  other: z.string().min(1).max(200).meta({
    param: { name: "other", in: "path" },
    example: "Mara",
  }),
});

const listRelationshipsRoute = agents.get("/worlds/{world}/agents/{agent}/relationships", {
  middleware: requires("read"),
  operationId: "listRelationships",
  summary: "Everyone the agent has met, with how it feels about them and the memories why",
  description:
    "Derived from the memory stream as memories are stored (what others told or did to it, what it said to them, its reflections about them): no model call.",
  responses: {
    200: jsonContent(
      z.object({ relationships: z.array(RelationshipBody) }).meta({ id: "Relationships" }),
      "The relationships, the most familiar first",
    ),
  },
  errors: [401, 403, 404, 503],
});

const getRelationshipRoute = agents.get("/worlds/{world}/agents/{agent}/relationships/{other}", {
  middleware: requires("read"),
  operationId: "getRelationship",
  summary: "The agent's relationship with one agent (by id) or speaker (by name)",
  request: { params: OtherParams },
  responses: { 200: jsonContent(RelationshipBody, "The relationship") },
  errors: [401, 403, 404, 503],
});

const getLoreRoute = worlds.get("/worlds/{world}/lore", {
  middleware: requires("direct"),
  operationId: "getLore",
  summary: "The world's lore entries",
  responses: { 200: jsonContent(LoreList, "The entries; none while none was set") },
  errors: [401, 403, 404, 503],
});

const putLoreRoute = worlds.put("/worlds/{world}/lore", {
  middleware: requires("direct"),
  operationId: "setLore",
  summary: "Replace the world's lore: entries replies pull in by keys the dialogue says",
  description:
    "SillyTavern World Info semantics: keys match whole words, case-insensitive, in the recent dialogue; `secondaryKeys` must match too; `constant` entries are always on; at most 4 entries per prompt. An entry is used only by the agents in `knownBy`, and one with `minTrust` only with a speaker the agent trusts that much. Replies report what they used in `used.lore`. A bad entry (duplicate id, content over 2,000 characters, an unknown agent in knownBy) answers 422 with `details.index`, and nothing is stored.",
  request: { body: jsonBody(LoreBody) },
  responses: { 200: jsonContent(LoreList, "The stored entries") },
  errors: [400, 401, 403, 404, 409, 413, 415, 422, 503],
});

/** The relationship and lore routes under `/v1`. */
export function socialRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(listRelationshipsRoute, async (c) => {
    const relationships = await listRelationships(deps, agentScope(c.req.valid("param")));
    return c.json({ relationships }, 200);
  });
  app.openapi(getRelationshipRoute, async (c) => {
    const { other, ...param } = c.req.valid("param");
    return c.json(await getRelationship(deps, agentScope(param), other), 200);
  });
  app.openapi(getLoreRoute, async (c) => {
    return c.json({ entries: await getLore(deps, c.req.valid("param").world) }, 200);
  });
  app.openapi(putLoreRoute, async (c) => {
    const { world } = c.req.valid("param");
    return c.json({ entries: await putLore(deps, world, c.req.valid("json")) }, 200);
  });
  return app;
}
