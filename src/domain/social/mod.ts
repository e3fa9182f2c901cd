/** @module An agent's relationships and mood, derived from its memories, and the world's lore (issue 22). */
export * from "./bonds.ts";
export * from "./lore.ts";
export * from "./mood.ts";
export * from "./relationship.ts";
