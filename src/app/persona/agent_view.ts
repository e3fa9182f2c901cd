/**
 * @module One agent as an inspector shows it: the record with its cached summary, its persona
 * and today's plan, in one read (no model call), so a client needs no request that 404s for a
 * state that is simply not there yet.
 */
import { cachedSummary, readPlan } from "../cognition/mod.ts";
import {
  type Agent,
  type AgentScope,
  type DayPlan,
  type MoodView,
  type Persona,
  SimulacraError,
} from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { loadAgent, loadPersonaRecord } from "../agents/mod.ts";
import { loadBonds, moodOf } from "../social/mod.ts";
import { getWorld } from "../world/mod.ts";

/** An agent with what an inspector shows beside it (`GET /v1/worlds/{world}/agents/{agent}`). */
export interface AgentDetails extends Agent {
  /** The cached agent summary (null until first made). */
  summary: string | null;
  /** The persona (null until set or built). */
  persona: Persona | null;
  /** The plan of the world clock's day, with its decomposition (null until made). */
  plan: DayPlan | null;
  /** How the agent feels now (issue 22): moved by important memories, drifting to its baseline. */
  mood: MoodView;
}

/**
 * The agent with its summary, persona and today's plan.
 * @throws `world_not_found`, `agent_not_found`, `store_unavailable`
 */
export async function viewAgent(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<AgentDetails> {
  const agent = (await loadAgent(deps, scope)).value;
  const [summary, persona, plan, bonds, world] = await Promise.all([
    cachedSummary(deps, agent),
    loadPersonaRecord(deps, scope),
    readPlan(deps, scope).catch((err) => {
      // No plan yet, or a clock before the agent's first day: nothing to show.
      if (err instanceof SimulacraError && ["not_found", "unprocessable"].includes(err.code)) {
        return null;
      }
      throw err;
    }),
    loadBonds(deps, scope),
    getWorld(deps, scope.worldId),
  ]);
  const mood = moodOf(bonds, { agent, at: world.clock.now });
  return {
    ...agent,
    summary: summary?.text ?? null,
    persona: persona?.persona ?? null,
    plan,
    mood,
  };
}
