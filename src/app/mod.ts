/** @module The operations: each loads what it needs in one transaction (transaction.ts), runs the domain and the mind, and commits once. */
export * from "./agents/mod.ts";
export * from "./archive/mod.ts";
export * from "./cognition/mod.ts";
export * from "./consolidate.ts";
export * from "./converse.ts";
export * from "./engine/mod.ts";
export * from "./lifecycle/mod.ts";
export * from "./memory/mod.ts";
export * from "./perceive.ts";
export * from "./persona/mod.ts";
export * from "./plan.ts";
export * from "./react.ts";
export * from "./reflect.ts";
export * from "./simulation/mod.ts";
export * from "./templates/mod.ts";
export * from "./transaction.ts";
export * from "./world/mod.ts";
