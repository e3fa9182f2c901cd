/** @module The agent document: its schema, seed phrases, and the context cognition acts in. */
export * from "./agent.ts";
export * from "./agent_context.ts";
