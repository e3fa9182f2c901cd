/** @module A world's tick for agents: perception, pairs, one agent's step, object states, the cron. */
export * from "./agent_step.ts";
export * from "./agent_tick.ts";
export * from "./coast_step.ts";
export * from "./object_states.ts";
export * from "./perception.ts";
export * from "./scheduled_tick.ts";
export * from "./step_summary.ts";
export * from "./tick_prepare.ts";
export * from "./tick_views.ts";
export * from "./tick_world.ts";
