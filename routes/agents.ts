/** @module Agent routes: create, list, read. */
import { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "zod";
import { Agent, CreateAgentInput, MemoryRecord, Persona, seesAgent } from "../src/domain/mod.ts";
import {
  createAgent,
  deleteAgent,
  getWorld,
  listAgents,
  updateAgent,
  UpdateAgentInput,
  viewAgent,
} from "../src/app/mod.ts";
import type { Deps } from "../src/ports/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { agentScope, routeGroup } from "./_route.ts";
import { DeletedBody, jsonBody, jsonContent, NextCursor } from "./_openapi.ts";
import { UsageBody } from "./_usage.ts";
import { pageById, PageQuery } from "./pages.ts";
import { PlanView, planView } from "./plan_shapes.ts";
import { MoodBody } from "./social.ts";

const agents = routeGroup("Agents");

/** The body of `GET /v1/worlds/{world}/agents/{agent}`. */
const AgentView = Agent.extend({
  summary: z.string().nullable().meta({
    description: "The cached agent summary (null until first made)",
  }),
  persona: Persona.nullable().meta({ description: "The persona (null until set or built)" }),
  plan: PlanView.nullable().meta({
    description: "The plan of the world clock's day, with its decomposition (null until made)",
  }),
  mood: MoodBody,
}).meta({ id: "AgentView" });

const CreatedAgentBody = Agent.extend({ seeds: z.array(MemoryRecord), usage: UsageBody })
  .meta({ id: "CreatedAgent" });

const createAgentRoute = agents.post("/worlds/{world}/agents", {
  middleware: requires("manage", { model: true }),
  operationId: "createAgent",
  summary: "Create an agent; its description's semicolon-separated phrases become seed memories",
  request: { body: jsonBody(CreateAgentInput) },
  responses: { 201: jsonContent(CreatedAgentBody, "The agent and its seed memories") },
  errors: [400, 401, 403, 404, 409, 413, 415, 502, 503, 504],
});

const listAgentsRoute = agents.get("/worlds/{world}/agents", {
  middleware: requires("read", { agentScoped: true }),
  operationId: "listAgents",
  summary: "List the agents of a world by id, a page at a time",
  request: { query: PageQuery },
  responses: {
    200: jsonContent(
      z.object({ agents: z.array(Agent), next: NextCursor }).meta({ id: "AgentPage" }),
      "A page of agents",
    ),
  },
  errors: [400, 401, 403, 404, 503],
});

const updateAgentRoute = agents.patch("/worlds/{world}/agents/{agent}", {
  middleware: requires("manage"),
  operationId: "updateAgent",
  summary: "Rename an agent, change its age or traits, or set its status (location, action)",
  description: "Only the fields sent change. A new name, age or traits remake the cached summary.",
  request: { body: jsonBody(UpdateAgentInput) },
  responses: { 200: jsonContent(Agent, "The agent as stored now") },
  errors: [400, 401, 403, 404, 409, 413, 415, 503],
});

const deleteAgentRoute = agents.delete("/worlds/{world}/agents/{agent}", {
  middleware: requires("manage"),
  operationId: "deleteAgent",
  summary: "Delete an agent and everything it owns, from every store",
  description:
    "Memories, vectors, plans, persona, summary, reply sessions, the conversations it took part in, its events and its usage line go; the world's usage totals keep what it cost.",
  responses: { 200: jsonContent(DeletedBody, "What was deleted") },
  errors: [401, 403, 404, 409, 503],
});

const getAgentRoute = agents.get("/worlds/{world}/agents/{agent}", {
  middleware: requires("read"),
  operationId: "getAgent",
  summary: "Read an agent with its summary, persona and today's plan (no model call)",
  responses: {
    200: jsonContent(AgentView, "The agent with its cached summary, persona and today's plan"),
  },
  errors: [401, 403, 404, 503],
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
    const scope = agentScope(c.req.valid("param"));
    return c.json(await updateAgent(deps, scope, c.req.valid("json")), 200);
  });
  app.openapi(
    deleteAgentRoute,
    async (c) => c.json(await deleteAgent(deps, agentScope(c.req.valid("param"))), 200),
  );
  app.openapi(getAgentRoute, async (c) => {
    const agent = await viewAgent(deps, agentScope(c.req.valid("param")));
    return c.json({ ...agent, plan: agent.plan && planView(agent.plan) }, 200);
  });
  return app;
}
