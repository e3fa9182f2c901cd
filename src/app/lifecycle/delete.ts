/** @module Deleting an agent or a whole world, with everything it owns, from every store. */
import { listAgents, loadAgent, withAgentLock } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { type AgentId, type AgentScope, ConflictError, type WorldId } from "../../domain/mod.ts";
import { withLease } from "../engine/mod.ts";
import { activityKey, getWorld, worldKey } from "../world/mod.ts";
import { removeAgentData, removeWorldData } from "./owned_data.ts";

/** What a deletion removed. */
export interface Deleted {
  worldId: string;
  agentId?: string;
  /** Agents removed with it (a world's). */
  agents: number;
}

/**
 * Deletes an agent and all it owns, holding its lock so no request or tick step of it
 * interleaves. Sending it again after a failure finishes the job.
 * @throws `agent_not_found`, `conflict` when the agent stays busy, `store_unavailable`.
 */
export async function deleteAgent(
  deps: Pick<Deps, "storage" | "sleep">,
  scope: AgentScope,
): Promise<Deleted> {
  await loadAgent(deps, scope);
  await withAgentLock(deps, { scope, waitMs: 30_000 }, () => removeAgentData(deps, scope));
  return { worldId: scope.worldId, agentId: scope.agentId, agents: 1 };
}

/**
 * Deletes a world with its agents and everything they own. It holds the world's tick lease
 * (waiting up to 30 s for a running tick to finish), so no tick writes while it deletes.
 * @throws `world_not_found`, `conflict` when a tick keeps the world busy, `store_unavailable`.
 */
export async function deleteWorld(
  deps: Pick<Deps, "storage" | "sleep">,
  worldId: WorldId,
): Promise<Deleted> {
  await getWorld(deps, worldId);
  return await withLease(deps, {
    key: `tick:${worldId}`,
    ttlMs: 600_000,
    waitMs: 30_000,
    busy: () =>
      new ConflictError(`Cannot delete world "${worldId}": a tick kept it busy, retry shortly`),
  }, async () => {
    const agents = await listAgents(deps, worldId);
    for (const agent of agents) {
      const scope: AgentScope = { worldId, agentId: agent.id as AgentId };
      await withAgentLock(deps, { scope, waitMs: 30_000 }, () => removeAgentData(deps, scope));
    }
    await removeWorldData(deps, worldId, {
      world: worldKey(worldId),
      activity: activityKey(worldId),
    });
    return { worldId, agents: agents.length };
  });
}
