/**
 * @module One agent as an inspector shows it: the record with its cached summary, its persona
 * and today's plan, in one read (no model call), so a client needs no request that 404s for a
 * state that is simply not there yet.
 */
import { z } from "zod";
import { cachedSummary, readPlan } from "../cognition/mod.ts";
import { Agent, type AgentScope, Persona, PlanView, SimulacraError } from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { loadAgent, loadPersonaRecord } from "../agents/mod.ts";

/** The body of `GET /v1/worlds/{world}/agents/{agent}`. */
export const AgentView = Agent.extend({
  summary: z.string().nullable().meta({
    description: "The cached agent summary (null until first made)",
  }),
  persona: Persona.nullable().meta({ description: "The persona (null until set or built)" }),
  plan: PlanView.nullable().meta({
    description: "The plan of the world clock's day, with its decomposition (null until made)",
  }),
}).meta({ id: "AgentView" });
export type AgentView = z.infer<typeof AgentView>;

/**
 * The agent with its summary, persona and today's plan.
 * @throws `world_not_found`, `agent_not_found`, `store_unavailable`
 */
export async function viewAgent(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<AgentView> {
  const agent = (await loadAgent(deps, scope)).value;
  const [summary, persona, plan] = await Promise.all([
    cachedSummary(deps, agent),
    loadPersonaRecord(deps, scope),
    readPlan(deps, scope).catch((err) => {
      // No plan yet, or a clock before the agent's first day: nothing to show.
      if (err instanceof SimulacraError && ["not_found", "unprocessable"].includes(err.code)) {
        return null;
      }
      throw err;
    }),
  ]);
  return { ...agent, summary: summary?.text ?? null, persona: persona?.persona ?? null, plan };
}
