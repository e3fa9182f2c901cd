/** @module The tick engine (plan, steps, close; inline or through a queue) and the unit of work every transaction runs in. */
export * from "./lease.ts";
export * from "./pool.ts";
export * from "./tick_clock.ts";
export * from "./tick_close.ts";
export * from "./tick_engine.ts";
export * from "./tick_messages.ts";
export * from "./tick_plan.ts";
export * from "./tick_records.ts";
export * from "./tick_runners.ts";
export * from "./tick_steps.ts";
export * from "./tick_store.ts";
export * from "./unit_of_work.ts";
