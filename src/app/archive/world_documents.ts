/**
 * @module Which document collections a world owns, so exporting, importing and forking a world
 * carries every one of them. A new collection scoped by world must be added here:
 * `tests/src/archive/world_documents_test.ts` fails when one is missing.
 */
import type { Deps, DocumentKey, Versioned } from "../../ports/mod.ts";
import type { AgentId, WorldId } from "../../domain/mod.ts";
import { WORLD_COLLECTIONS } from "../lifecycle/mod.ts";

/**
 * Collections whose scope is the world id: the list deletion uses too (agents come first, and an
 * import checks the other records against the agents it has read).
 */
export { WORLD_COLLECTIONS };

/** Collections whose scope is `<worldId>/<agentId>`. */
export const AGENT_COLLECTIONS = ["reply_sessions"] as const;

/**
 * Collections outside any world's scope, never exported: store metadata, the worlds themselves
 * (the archive has its own world line) and when each world was last used (runtime state).
 */
export const GLOBAL_COLLECTIONS = ["worlds", "meta", "world_activity"] as const;

/**
 * Engine state that lives only while a tick runs (the world's open tick): never exported, so an
 * imported or forked world starts with no tick in flight.
 */
export const TRANSIENT_COLLECTIONS = ["tick_open"] as const;

/** A document of a world, with the agent it is scoped to when it is. */
export interface WorldDocument {
  collection: string;
  agentId?: AgentId;
  doc: Versioned<unknown>;
}

/** Where a world's document lives. */
export function worldDocumentKey(
  worldId: WorldId,
  item: { collection: string; agentId?: string; id: string },
): DocumentKey {
  const scope = item.agentId === undefined ? worldId : `${worldId}/${item.agentId}`;
  return { collection: item.collection, scope, id: item.id };
}

/** Whether an import may write a document of this collection (a per-agent one needs its agent). */
export function isWorldCollection(collection: string, perAgent: boolean): boolean {
  const list: readonly string[] = perAgent ? AGENT_COLLECTIONS : WORLD_COLLECTIONS;
  return list.includes(collection);
}

/** Every document the world owns: its agents first, then the other collections. */
export async function listWorldDocuments(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  agentIds: readonly AgentId[],
): Promise<WorldDocument[]> {
  const { documents } = deps.storage;
  const out: WorldDocument[] = [];
  for (const collection of WORLD_COLLECTIONS) {
    for (const doc of await documents.list(collection, worldId)) out.push({ collection, doc });
  }
  for (const collection of AGENT_COLLECTIONS) {
    for (const agentId of agentIds) {
      for (const doc of await documents.list(collection, `${worldId}/${agentId}`)) {
        out.push({ collection, agentId, doc });
      }
    }
  }
  return out;
}
