/** @module The domain: pure, synchronous state and rules (worlds, agents, memories, plans, conversations, personas, prompts). No storage, no model, no awaits. */
export * from "./access/mod.ts";
export * from "./agent/mod.ts";
export * from "./archive/mod.ts";
export * from "./conversation/mod.ts";
export * from "./errors.ts";
export * from "./game_hooks/mod.ts";
export * from "./ids.ts";
export * from "./memory/mod.ts";
export * from "./persona/mod.ts";
export * from "./plan/mod.ts";
export * from "./prompts/mod.ts";
export * from "./text/mod.ts";
export * from "./time/mod.ts";
export * from "./usage.ts";
export * from "./version.ts";
export * from "./world/mod.ts";
