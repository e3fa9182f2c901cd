/** @module An agent's and a world's lifecycle: creating agents from their description, updating them, deleting worlds and agents with everything they own, forgetting memories. */
export * from "./create_agent.ts";
export * from "./delete.ts";
export * from "./forget.ts";
export * from "./owned_data.ts";
export * from "./update_agent.ts";
