/** @module Relationships, mood and lore in storage and in prompts (issue 22). */
export * from "./bonds_store.ts";
export * from "./lore_store.ts";
export * from "./relationships.ts";
