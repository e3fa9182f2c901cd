/** @module Agent routes: create, list, read. */
import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { Agent, CreateAgentInput, listAgents } from "../src/agents/agent.ts";
import { AgentView, viewAgent } from "../src/persona/agent_view.ts";
import { createAgent } from "../src/persona/create_agent.ts";
import type { Deps } from "../src/deps.ts";
import { MemoryRecord } from "../src/ports/memory_record.ts";
import { getWorld } from "../src/world/world.ts";
import { seesAgent } from "../src/access/api_key.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { errorResponses } from "./errors.ts";
import {
  AgentParams,
  DeletedBody,
  jsonBody,
  jsonContent,
  NextCursor,
  WorldParams,
} from "./_openapi.ts";
import { deleteAgent } from "../src/lifecycle/delete.ts";
import { pageById, PageQuery } from "../src/lifecycle/pages.ts";
import { updateAgent, UpdateAgentInput } from "../src/lifecycle/update_agent.ts";
import { UsageBody } from "./_usage.ts";

const CreatedAgentBody = Agent.extend({ seeds: z.array(MemoryRecord), usage: UsageBody })
  .meta({ id: "CreatedAgent" });

const createAgentRoute = createRoute({
  method: "post",
  path: "/worlds/{world}/agents",
  middleware: requires("manage", { model: true }),
  operationId: "createAgent",
  tags: ["Agents"],
  summary: "Create an agent; its description's semicolon-separated phrases become seed memories",
  request: { params: WorldParams, body: jsonBody(CreateAgentInput) },
  responses: {
    201: jsonContent(CreatedAgentBody, "The agent and its seed memories"),
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 502, 503, 504),
  },
});

const listAgentsRoute = createRoute({
  method: "get",
  path: "/worlds/{world}/agents",
  middleware: requires("read", { agentScoped: true }),
  operationId: "listAgents",
  tags: ["Agents"],
  summary: "List the agents of a world by id, a page at a time",
  request: { params: WorldParams, query: PageQuery },
  responses: {
    200: jsonContent(
      z.object({ agents: z.array(Agent), next: NextCursor }).meta({ id: "AgentPage" }),
      "A page of agents",
    ),
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

const updateAgentRoute = createRoute({
  method: "patch",
  path: "/worlds/{world}/agents/{agent}",
  middleware: requires("manage"),
  operationId: "updateAgent",
  tags: ["Agents"],
  summary: "Rename an agent, change its age or traits, or set its status (location, action)",
  description: "Only the fields sent change. A new name, age or traits remake the cached summary.",
  request: { params: AgentParams, body: jsonBody(UpdateAgentInput) },
  responses: {
    200: jsonContent(Agent, "The agent as stored now"),
    ...errorResponses(400, 401, 403, 404, 409, 413, 415, 503),
  },
});

const deleteAgentRoute = createRoute({
  method: "delete",
  path: "/worlds/{world}/agents/{agent}",
  middleware: requires("manage"),
  operationId: "deleteAgent",
  tags: ["Agents"],
  summary: "Delete an agent and everything it owns, from every store",
  description:
    "Memories, vectors, plans, persona, summary, reply sessions, the conversations it took part in, its events and its usage line go; the world's usage totals keep what it cost.",
  request: { params: AgentParams },
  responses: {
    200: jsonContent(DeletedBody, "What was deleted"),
    ...errorResponses(401, 403, 404, 409, 503),
  },
});

const getAgentRoute = createRoute({
  method: "get",
  path: "/worlds/{world}/agents/{agent}",
  middleware: requires("read"),
  operationId: "getAgent",
  tags: ["Agents"],
  summary: "Read an agent with its summary, persona and today's plan (no model call)",
  request: { params: AgentParams },
  responses: {
    200: jsonContent(AgentView, "The agent with its cached summary, persona and today's plan"),
    ...errorResponses(401, 403, 404, 503),
  },
});

/** The agent routes under `/v1`. */
export function agentRoutes(deps: Deps): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  app.openapi(createAgentRoute, async (c) => {
    const { agent, seeds, usage } = await createAgent(
      deps,
      c.req.valid("param").world,
      c.req.valid("json"),
    );
    return c.json({ ...agent, seeds, usage }, 201);
  });
  app.openapi(listAgentsRoute, async (c) => {
    const { world } = c.req.valid("param");
    await getWorld(deps, world);
    // A key scoped to some agents sees only those.
    const principal = c.get("principal");
    const visible = (await listAgents(deps, world)).filter((a) => seesAgent(principal, a.id));
    const page = pageById(visible, c.req.valid("query"));
    return c.json({ agents: page.items, next: page.next }, 200);
  });
  app.openapi(updateAgentRoute, async (c) => {
    const { world, agent } = c.req.valid("param");
    const scope = { worldId: world, agentId: agent };
    return c.json(await updateAgent(deps, scope, c.req.valid("json")), 200);
  });
  app.openapi(deleteAgentRoute, async (c) => {
    const { world, agent } = c.req.valid("param");
    return c.json(await deleteAgent(deps, { worldId: world, agentId: agent }), 200);
  });
  app.openapi(getAgentRoute, async (c) => {
    const { world, agent } = c.req.valid("param");
    return c.json(await viewAgent(deps, { worldId: world, agentId: agent }), 200);
  });
  return app;
}
