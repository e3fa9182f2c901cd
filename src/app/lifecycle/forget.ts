/** @module Forgetting one memory: the record, its vector and any pending score go. */
import { agentKey, loadAgent, withAgentLock } from "../agents/mod.ts";
import { type Agent, type AgentScope, type MemoryId, NotFoundError } from "../../domain/mod.ts";
import { type Deps, updateDocument } from "../../ports/mod.ts";

/** What forgetting a memory did. */
export interface Forgotten {
  id: MemoryId;
  /**
   * Reflections that cite it. They keep their text; reading one lists the memory under
   * `forgottenEvidence`.
   */
  citedBy: MemoryId[];
}

/**
 * Removes one memory from the agent's stream and vector index, under the agent's lock.
 * @throws `agent_not_found`, `memory_not_found`, `conflict`, `store_unavailable`.
 */
export async function forgetMemory(
  deps: Pick<Deps, "storage" | "sleep">,
  scope: AgentScope,
  id: MemoryId,
): Promise<Forgotten> {
  await loadAgent(deps, scope);
  return await withAgentLock(deps, { scope }, async () => {
    const memories = deps.storage.memories;
    if (!(await memories.get(scope, id))) {
      throw new NotFoundError(
        "memory_not_found",
        `Cannot forget memory "${id}" of agent "${scope.agentId}": it does not exist (or was forgotten already)`,
      );
    }
    const citedBy = (await memories.all(scope))
      .filter((m) => m.evidence?.includes(id))
      .map((m) => m.id);
    await memories.remove(scope, [id]);
    await deps.storage.vectors.delete(scope, [id]);
    await dropPending(deps, scope, id);
    return { id, citedBy };
  });
}

/** Takes the memory off the agent's list of memories awaiting an importance score. */
async function dropPending(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  id: MemoryId,
): Promise<void> {
  await updateDocument<Agent>(deps.storage.documents, agentKey(scope), {
    change: (agent) =>
      agent?.pendingImportance.includes(id)
        ? { ...agent, pendingImportance: agent.pendingImportance.filter((p) => p !== id) }
        : undefined,
    create: false,
    conflict:
      `Cannot update agent "${scope.agentId}" after forgetting a memory: it kept changing, retry`,
  });
}
