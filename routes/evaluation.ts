/** @module Evaluation routes: MREval on an agent, judged by the configured judge (SIMULACRA_JUDGE_MODEL, else the offline one). */
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Deps, LanguageModel } from "../src/ports/mod.ts";
import {
  evaluateAgent,
  EvaluateInput,
  EvaluateResult,
  measureWorld,
  WorldMetricsInput,
  WorldMetricsResult,
} from "../src/app/mod.ts";
import type { WorldId } from "../src/domain/mod.ts";
import type { AppEnv } from "./app_env.ts";
import { requires } from "./permissions.ts";
import { agentScope, routeGroup } from "./_route.ts";
import { jsonBody, jsonContent } from "./_openapi.ts";

const evaluation = routeGroup("Evaluation");

const evaluateRoute = evaluation.post("/worlds/{world}/agents/{agent}/evaluate", {
  // `direct`, not `read` or `talk`: it spends model calls (read keys never do), runs the agent
  // on a rewritten persona (anonymised, contrary facet, no facets) and on turns naming any
  // speaker, past the speaker policy that holds talk keys to their own name.
  middleware: requires("direct", { model: true }),
  operationId: "evaluateAgent",
  summary:
    "Score the agent on MREval's eight metrics (MA-SI … ME-HLE) with the judge model, calibrated per metric",
  description:
    "Runs the agent on probes (default: built from its persona and memories) under a prompting condition, with the variants each metric compares: the anonymised persona (MA-SI, MA-AF), a contrary scene facet (MS-FA), no facets (MS-FU). No memory is written (the agent's cached summary may be refreshed, as for a reply). The judge scores each metric 1–10 by the paper's rubric; `calibrated` is `a + b · raw` with the paper's Table 15 parameters for its judge (GPT-4.1-mini) or yours. Probes that cannot score a requested metric are refused with 422 before any model call; a judge answer that fails its schema twice is a 502 naming the metric. The judge's usage is reported apart from the agent's and is not metered against budgets.",
  request: { body: jsonBody(EvaluateInput) },
  responses: {
    200: jsonContent(EvaluateResult, "The scores, each probe's answers, the judge and usage"),
  },
  errors: [400, 401, 403, 404, 413, 415, 422, 429, 502, 503, 504],
});

const metricsRoute = evaluation.post("/worlds/{world}/metrics", {
  // `simulate`: like a tick it spends model calls for every agent of the world, and a key
  // scoped to some agents may not interview the others.
  middleware: requires("simulate", { model: true }),
  operationId: "measureWorld",
  summary:
    "Measure diffusion of facts, relationship density and event attendance by interviewing every agent",
  description:
    'Each agent is asked, in interview mode (nothing is stored), whether it has heard of each fact, whether it was at the event\'s place in its time, and, about each other agent, "Do you know …?" (as the paper asked); the judge reads each answer. Returns the numbers with every answer as evidence. Density counts a pair when each names the other. Calls: per agent, one per question (facts + event + the other agents) plus its summary when stale; one judge call per answer (reported apart, not metered).',
  request: { body: jsonBody(WorldMetricsInput) },
  responses: { 200: jsonContent(WorldMetricsResult, "The measures and each agent's answers") },
  errors: [400, 401, 403, 404, 413, 415, 429, 502, 503, 504],
});

/** The evaluation routes under `/v1`; `judge` scores. */
export function evaluationRoutes(
  deps: Deps,
  options: { judge: LanguageModel },
): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>();
  const judged = { ...deps, judge: options.judge };
  app.openapi(evaluateRoute, async (c) => {
    const scope = agentScope(c.req.valid("param"));
    return c.json(await evaluateAgent(judged, scope, c.req.valid("json")), 200);
  });
  app.openapi(metricsRoute, async (c) => {
    const world = c.req.valid("param").world as WorldId;
    return c.json(await measureWorld(judged, world, c.req.valid("json")), 200);
  });
  return app;
}
