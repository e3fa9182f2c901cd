/** @module Deleting worlds and agents with everything they own; forgetting memories; updating agents. */
export * from "./delete.ts";
export * from "./forget.ts";
export * from "./owned_data.ts";
export * from "./pages.ts";
export * from "./update_agent.ts";
