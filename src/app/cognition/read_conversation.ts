/** @module Reading one stored conversation, so a client can show the lines a tick event points at. */
import { type Conversation, conversationNotFound } from "../../domain/mod.ts";
import { requireDocument } from "../../ports/mod.ts";
import { ofExistingWorld } from "../world/mod.ts";
import { conversationKey } from "./conversation_key.ts";

/**
 * The conversation `id` of a world, with every line (what a `conversation` event refers to).
 * @throws `world_not_found`, `not_found`, `store_unavailable`
 */
export const readConversation = ofExistingWorld<string, Conversation>(
  async (deps, worldId, id) => {
    const doc = await requireDocument<Conversation>(
      deps.storage.documents,
      conversationKey(worldId, id),
      () => conversationNotFound(worldId, id),
    );
    return doc.value;
  },
);
