/**
 * @module Everything a world or an agent owns, in every store, and its removal. A new
 * world-scoped collection must be named here: the deletion tests scan every store afterwards
 * and fail on anything left behind.
 */
import { agentIdempotencyScope, type AgentScope, type WorldId } from "../../domain/mod.ts";
import type { Deps, DocumentKey } from "../../ports/mod.ts";
import { markerScope, stepScope } from "../engine/mod.ts";
import { forgetAgentLore } from "../social/mod.ts";

/** Document collections whose scope is a world id. */
export const WORLD_COLLECTIONS = [
  "agents",
  "environments",
  "object_states",
  "perception",
  "personas",
  "plans",
  "conversation_state",
  "conversations",
  "summaries",
  "importance",
  "bonds",
  "lore",
  "game_actions",
  "goals",
] as const;

/** Documents keyed by the agent id within its world's scope. */
const AGENT_DOCUMENTS = [
  "agents",
  "personas",
  "perception",
  "conversation_state",
  "summaries",
  "bonds",
  "goals",
];

/** The document scope of an agent's reply sessions. */
export function replySessionScope(scope: AgentScope): string {
  return `${scope.worldId}/${scope.agentId}`;
}

/**
 * Removes what one agent owns: its memories, vectors, perceived event ids, reply sessions,
 * plans, persona, summary, perception and conversation state, relationships and mood, its
 * place in the world's lore, the conversations it took part in, its events and its line in the usage totals. The agent document goes last, so a removal
 * cut short can be sent again.
 */
export async function removeAgentData(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<void> {
  const { storage } = deps;
  const docs = storage.documents;
  await storage.memories.clear(scope);
  await storage.vectors.clear(scope);
  await storage.idempotency.clear(agentIdempotencyScope(scope));
  await docs.deleteAll("reply_sessions", replySessionScope(scope));
  for (const plan of await docs.list("plans", scope.worldId)) {
    if (plan.id.startsWith(`${scope.agentId}:`)) {
      await docs.delete({ collection: "plans", scope: scope.worldId, id: plan.id });
    }
  }
  const talks = await docs.list<{ participants?: string[] }>("conversations", scope.worldId);
  for (const talk of talks) {
    if (talk.value.participants?.includes(scope.agentId)) {
      await docs.delete({ collection: "conversations", scope: scope.worldId, id: talk.id });
    }
  }
  await storage.events.remove(scope.worldId, { agentId: scope.agentId });
  await storage.usage.remove(scope.worldId, { agentId: scope.agentId });
  await forgetAgentLore(deps, scope);
  for (const collection of AGENT_DOCUMENTS.filter((c) => c !== "agents")) {
    await docs.delete(agentDocument(collection, scope));
  }
  await docs.delete(agentDocument("agents", scope));
}

/**
 * Removes what a world owns besides its agents' own data (call {@linkcode removeAgentData} for
 * each agent first): every world-scoped collection, its events, usage, tick ids, step results and activity.
 * The world document goes last.
 */
export async function removeWorldData(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  keys: { world: DocumentKey; activity: DocumentKey },
): Promise<void> {
  const { storage } = deps;
  for (const collection of WORLD_COLLECTIONS) {
    await storage.documents.deleteAll(collection, worldId);
  }
  await storage.events.remove(worldId);
  await storage.usage.remove(worldId);
  await storage.idempotency.clear(markerScope(worldId));
  await storage.idempotency.clear(stepScope(worldId));
  await storage.documents.delete(keys.activity);
  await storage.documents.delete(keys.world);
}

function agentDocument(collection: string, scope: AgentScope): DocumentKey {
  return { collection, scope: scope.worldId, id: scope.agentId };
}
