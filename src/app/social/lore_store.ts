/**
 * @module A world's lore in storage (`PUT`/`GET /v1/worlds/{world}/lore`): one document holding
 * the list, checked whole before it replaces the stored one. Card lorebooks join it as entries
 * known by their agent; deleting an agent takes it out of every `knownBy`.
 */
import { type Deps, type DocumentKey, updateDocument } from "../../ports/mod.ts";
import {
  type AgentScope,
  checkLore,
  LoreInput,
  MAX_LORE_ENTRIES,
  SimulacraError,
  type WorldId,
  type WorldLoreEntry,
} from "../../domain/mod.ts";
import { listAgents } from "../agents/mod.ts";
import { getWorld } from "../world/mod.ts";

/** Where a world's lore lives. */
export function loreKey(worldId: string): DocumentKey {
  return { collection: "lore", scope: worldId, id: "lore" };
}

/** The stored document. */
export interface LoreDocument {
  entries: WorldLoreEntry[];
}

/** The world's lore entries, none when it has none (no world check). */
export async function loadLore(
  deps: Pick<Deps, "storage">,
  worldId: string,
): Promise<WorldLoreEntry[]> {
  return (await deps.storage.documents.get<LoreDocument>(loreKey(worldId)))?.value.entries ?? [];
}

/**
 * The world's lore entries.
 * @throws `world_not_found`
 */
export async function getLore(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<WorldLoreEntry[]> {
  await getWorld(deps, worldId);
  return await loadLore(deps, worldId);
}

/**
 * Replaces the world's lore with `input.entries`, every entry checked first (see `checkLore`):
 * nothing is written when one is refused.
 * @throws `world_not_found`, `invalid_request` (no entries list), `unprocessable` naming the entry.
 */
export async function putLore(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  input: unknown,
): Promise<WorldLoreEntry[]> {
  await getWorld(deps, worldId);
  const parsed = LoreInput.safeParse(input);
  if (!parsed.success) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot set lore: the body must be {"entries": [...]} with at most ${MAX_LORE_ENTRIES} entries (${
        parsed.error.issues[0].message
      })`,
    );
  }
  const agentIds = new Set((await listAgents(deps, worldId)).map((a) => a.id as string));
  const entries = checkLore(parsed.data.entries, { agentIds });
  await updateDocument<LoreDocument>(deps.storage.documents, loreKey(worldId), {
    change: () => ({ entries }),
  });
  return entries;
}

/**
 * Adds an imported card's lorebook as entries known only by its agent (ids
 * `<agentId>.lore.<n>`), replacing that agent's earlier card entries.
 */
export async function addCardLore(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  lorebook: readonly { keys: string[]; content: string }[],
): Promise<void> {
  const prefix = `${scope.agentId}.lore.`;
  const mine: WorldLoreEntry[] = lorebook
    .filter((e) => e.keys.length > 0)
    .map((e, i) => ({
      id: `${prefix}${i + 1}`,
      keys: e.keys.slice(0, 20).map((k) => k.slice(0, 100)),
      content: e.content.slice(0, 2000),
      knownBy: [scope.agentId],
    }));
  if (mine.length === 0) return;
  await updateDocument<LoreDocument>(deps.storage.documents, loreKey(scope.worldId), {
    change: (doc) => ({
      entries: [...(doc?.entries ?? []).filter((e) => !e.id.startsWith(prefix)), ...mine],
    }),
  });
}

/** Takes a deleted agent out of every `knownBy`; entries only it knew go with it. */
export async function forgetAgentLore(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<void> {
  await updateDocument<LoreDocument>(deps.storage.documents, loreKey(scope.worldId), {
    create: false,
    change: (doc) => {
      if (doc === null) return undefined;
      const knows = (e: WorldLoreEntry) => e.knownBy !== "all" && e.knownBy.includes(scope.agentId);
      if (!doc.entries.some(knows)) return undefined;
      return {
        entries: doc.entries.flatMap((e) => {
          if (!knows(e)) return [e];
          const rest = (e.knownBy as string[]).filter((a) => a !== scope.agentId);
          return rest.length === 0 ? [] : [{ ...e, knownBy: rest }];
        }),
      };
    },
  });
}
