/** @module Where a conversation is stored. */
import type { DocumentKey } from "../../ports/mod.ts";

/** Where a conversation of a world is stored. */
export function conversationKey(worldId: string, id: string): DocumentKey {
  return { collection: "conversations", scope: worldId, id };
}
