/** @module Agents in storage: load, store, list, their lock, the transaction's view of them and where their persona lives. */
export * from "./agent_lock.ts";
export * from "./agent_store.ts";
export * from "./agent_transaction.ts";
export * from "./persona_record.ts";
