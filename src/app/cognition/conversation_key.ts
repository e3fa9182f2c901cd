/** @module Reads and writes for conversation: A conversation between two agents, as stored and as the API shows it (Generative Agents §4.3). */
import type { DocumentKey } from "../../ports/mod.ts";

/** Where a conversation of a world is stored. */
export function conversationKey(worldId: string, id: string): DocumentKey {
  return { collection: "conversations", scope: worldId, id };
}
