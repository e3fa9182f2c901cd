/** @module Agents in storage: load, store, list, their lock and the transaction's view of them. */
export * from "./agent_lock.ts";
export * from "./agent_store.ts";
export * from "./agent_transaction.ts";
