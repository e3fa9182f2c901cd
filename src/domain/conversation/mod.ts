/** @module Conversations: their document, lines and ids. */
export * from "./conversation.ts";
export * from "./conversation_id.ts";
