/** @module Game hooks: the verbs a game executes for its agents, the events it raises, the goals it sets. */
export * from "./game_action.ts";
export * from "./goal.ts";
export * from "./json_schema.ts";
export * from "./trigger.ts";
