/** @module Creating an agent: its document plus one seed memory per description phrase (Generative Agents §4.1). */
import type { Deps } from "../../ports/mod.ts";
import {
  type Agent,
  type AgentScope,
  type CreateAgentInput,
  emptyUsage,
  isPlayer,
  type MemoryId,
  type MemoryRecord,
  seedPhrases,
  type Usage,
  type WorldId,
} from "../../domain/mod.ts";
import { prepareMemories, writeMemories } from "../memory/mod.ts";
import { getWorld } from "../world/mod.ts";
import { agentKey, newAgent, startingAreas, storeNewAgent } from "../agents/mod.ts";

/** A new agent with its seed memories. */
export interface CreatedAgent {
  agent: Agent;
  seeds: MemoryRecord[];
  usage: Usage;
}

/**
 * Undoes an agent creation that failed part-way: its memories, their vectors, its document. Best
 * effort (the creation's own error is the one reported); what a failing store leaves here is
 * invisible without the agent document and the repair sweep removes orphan vectors.
 */
export async function discardNewAgent(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  vectorIds: readonly MemoryId[],
): Promise<void> {
  await deps.storage.memories.clear(scope).catch(() => {});
  await deps.storage.vectors.delete(scope, vectorIds).catch(() => {});
  await deps.storage.documents.delete(agentKey(scope)).catch(() => false);
}

/**
 * Creates an agent in a world. Its description is split on semicolons into `seed` memories,
 * scored in one call and embedded in one call before anything is written; if writing the seeds
 * fails, the agent document is removed again.
 * @throws `world_not_found`, `conflict` (id taken), `model_*` (embedding), `store_unavailable`.
 */
export async function createAgent(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  worldId: WorldId,
  input: CreateAgentInput,
): Promise<CreatedAgent> {
  const world = await getWorld(deps, worldId);
  const created = newAgent(deps, worldId, { input, now: world.clock.now });
  // Validate places before any model call, so a bad home costs nothing.
  const draft: Agent = { ...created, ...(await startingAreas(deps, created)) };
  if (isPlayer(draft)) {
    // The game speaks for a player: no seed memories, no model call.
    await storeNewAgent(deps, draft);
    return { agent: draft, seeds: [], usage: emptyUsage() };
  }
  const prepared = await prepareMemories(deps, draft, {
    items: seedPhrases(input.description).map((description) => ({
      description,
      kind: "seed" as const,
      provenance: "seed" as const,
      at: world.clock.now,
    })),
  });
  // Seeds describe who the agent is; they do not count towards its first reflection.
  const agent: Agent = { ...draft, pendingImportance: prepared.stillPending };
  await storeNewAgent(deps, agent);
  const scope = { worldId, agentId: agent.id };
  try {
    await writeMemories(deps, scope, { prepared });
  } catch (err) {
    await discardNewAgent(deps, scope, prepared.records.map((r) => r.id));
    throw err;
  }
  return { agent, seeds: prepared.records, usage: prepared.usage };
}
