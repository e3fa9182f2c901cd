/** @module Reading one stored conversation, so a client can show the lines a tick event points at. */
import type { Deps } from "../../ports/mod.ts";
import { type Conversation, conversationNotFound, type WorldId } from "../../domain/mod.ts";
import { getWorld } from "../world/mod.ts";
import { conversationKey } from "./conversation_key.ts";

/**
 * The conversation `id` of a world, with every line (what a `conversation` event refers to).
 * @throws `world_not_found`, `not_found`, `store_unavailable`
 */
export async function readConversation(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  id: string,
): Promise<Conversation> {
  await getWorld(deps, worldId);
  const doc = await deps.storage.documents.get<Conversation>(conversationKey(worldId, id));
  if (!doc) throw conversationNotFound(worldId, id);
  return doc.value;
}
