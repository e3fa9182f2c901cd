/** @module Forgetting one memory: the record, its vector and any pending score go. */
import { withAgentLock } from "../agents/agent_lock.ts";
import { agentKey, loadAgent } from "../agents/agent.ts";
import type { Deps } from "../deps.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import type { AgentScope, MemoryId } from "../ids.ts";

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
  return await withAgentLock(deps, scope, async () => {
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
  for (let attempt = 0; attempt < 8; attempt++) {
    const doc = await loadAgent(deps, scope);
    if (!doc.value.pendingImportance.includes(id)) return;
    const next = {
      ...doc.value,
      pendingImportance: doc.value.pendingImportance.filter((p) => p !== id),
    };
    if (await deps.storage.documents.replace(agentKey(scope), next, doc.version)) return;
  }
  throw new ConflictError(
    `Cannot update agent "${scope.agentId}" after forgetting a memory: it kept changing, retry`,
  );
}
