/** @module The agent document: its schema, seed phrases, stable identity, and the context cognition acts in. */
export * from "./agent.ts";
export * from "./agent_context.ts";
export * from "./identity.ts";
