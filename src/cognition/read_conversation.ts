/** @module Reading one stored conversation, so a client can show the lines a tick event points at. */
import type { Deps } from "../deps.ts";
import { NotFoundError } from "../errors.ts";
import type { WorldId } from "../ids.ts";
import { getWorld } from "../world/world.ts";
import { type Conversation, conversationKey } from "./conversation.ts";

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
  if (!doc) {
    throw new NotFoundError(
      "not_found",
      `Cannot find conversation "${id}" in world "${worldId}": use the conversationId of a conversation event or of POST /v1/worlds/${worldId}/conversations`,
    );
  }
  return doc.value;
}
