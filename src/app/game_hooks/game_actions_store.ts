/** @module A world's registered actions in storage: the list the game sets, read by replies and plans. */
import { type Deps, type DocumentKey, updateDocument } from "../../ports/mod.ts";
import { checkActions, type GameAction, type WorldId } from "../../domain/mod.ts";
import { ofExistingWorld } from "../world/mod.ts";

/** Where a world's actions live. */
export function gameActionsKey(worldId: string): DocumentKey {
  return { collection: "game_actions", scope: worldId, id: "actions" };
}

/** The world's registered actions (none when the game set none). Does not check the world. */
export async function loadGameActions(
  deps: Pick<Deps, "storage">,
  worldId: string,
): Promise<GameAction[]> {
  const doc = await deps.storage.documents.get<{ actions: GameAction[] }>(gameActionsKey(worldId));
  return doc?.value.actions ?? [];
}

/**
 * Replaces the world's actions with `actions` (an empty list removes them all).
 * @throws `world_not_found`; `unprocessable` naming a bad item (`details.index`): a duplicate
 * name, an oversized text, a parameters schema that is not a supported JSON Schema.
 */
export const setGameActions = ofExistingWorld<GameAction[], GameAction[]>(
  async (deps, worldId: WorldId, actions) => {
    checkActions(actions);
    await updateDocument(deps.storage.documents, gameActionsKey(worldId), {
      change: () => ({ actions }),
    });
    return actions;
  },
);

/**
 * The world's actions.
 * @throws `world_not_found`
 */
export const listGameActions = ofExistingWorld<void, GameAction[]>(
  (deps, worldId) => loadGameActions(deps, worldId),
);
