/** @module The world document: clock, settings, budgets, the environment tree (Generative Agents §5). */
export * from "./budget.ts";
export * from "./clock.ts";
export * from "./environment.ts";
export * from "./retrieval_weights.ts";
export * from "./world.ts";
