/** @module An agent's goals in storage: the list the game sets and marks done, read by planning. */
import { type Deps, type DocumentKey, updateDocument } from "../../ports/mod.ts";
import { activeGoals, type AgentScope, type GameTime, type StoredGoal } from "../../domain/mod.ts";

/** Where an agent's goals live. */
export function goalsKey(scope: AgentScope): DocumentKey {
  return { collection: "goals", scope: scope.worldId, id: scope.agentId };
}

/** The agent's goals as stored, in the order the game gave (none when it set none). */
export async function loadGoals(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<StoredGoal[]> {
  return (await deps.storage.documents.get<{ goals: StoredGoal[] }>(goalsKey(scope)))?.value
    .goals ?? [];
}

/** The agent's goals active at `at`, most pressing first: what its plans serve. */
export async function loadActiveGoals(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  at: GameTime,
): Promise<StoredGoal[]> {
  return activeGoals(await loadGoals(deps, scope), at);
}

/**
 * Writes the agent's goals as `change` makes them from the stored ones (compare-and-set).
 * @returns the goals stored now.
 */
export async function updateGoals(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  change: (goals: StoredGoal[]) => StoredGoal[],
): Promise<StoredGoal[]> {
  const stored = await updateDocument<{ goals: StoredGoal[] }>(
    deps.storage.documents,
    goalsKey(scope),
    { change: (current) => ({ goals: change(current?.goals ?? []) }) },
  );
  return stored?.goals ?? [];
}
