/** @module Game hooks in storage: a world's registered actions and its agents' goals. */
export * from "./game_actions_store.ts";
export * from "./goals_store.ts";
