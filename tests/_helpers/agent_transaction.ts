/**
 * @module Tests call cognition's held operations (converse, decideReaction, currentAction, …) on
 * agents they created: these open the transaction over them the app layer would.
 */
import type { Agent } from "../../src/domain/agent/agent.ts";
import {
  type AgentsTransaction,
  type AgentTransaction,
  withAgent,
  withAgents,
} from "../../src/app/transaction.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { AgentScope, WorldId } from "../../src/domain/ids.ts";
import type { World } from "../../src/domain/world/world.ts";

function scopeOf(world: World, agent: Pick<Agent, "id">): AgentScope {
  return { worldId: world.id as WorldId, agentId: agent.id };
}

/** Runs `work` in one transaction over `agents` of `world` (as given), in that order. */
export async function inTransaction<T>(
  deps: Pick<Deps, "storage" | "sleep">,
  { world, agents }: { world: World; agents: readonly Pick<Agent, "id">[] },
  work: (tx: AgentsTransaction) => Promise<T>,
): Promise<T> {
  return await withAgents(deps, { scopes: agents.map((a) => scopeOf(world, a)), world }, work);
}

/** Runs `work` in one transaction over `agent` of `world` (as given). */
export async function inAgentTransaction<T>(
  deps: Pick<Deps, "storage" | "sleep">,
  { world, agent }: { world: World; agent: Agent },
  work: (tx: AgentTransaction) => Promise<T>,
): Promise<T> {
  return await withAgent(deps, { scope: scopeOf(world, agent), world }, work);
}
