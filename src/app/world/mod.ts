/** @module Worlds in storage: create, read, update, clock, environment, events, budgets, usage. */
export * from "./activity.ts";
export * from "./budget_store.ts";
export * from "./clock_store.ts";
export * from "./environment_store.ts";
export * from "./event_feed.ts";
export * from "./put_document.ts";
export * from "./world_reads.ts";
export * from "./world_store.ts";
export * from "./world_usage.ts";
