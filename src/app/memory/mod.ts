/** @module Storing, retrieving, recalling and repairing memories. */
export * from "./candidates.ts";
export * from "./embedding_check.ts";
export * from "./ingest.ts";
export * from "./listing.ts";
export * from "./perceive_held.ts";
export * from "./recall.ts";
export * from "./repair.ts";
export * from "./retrieval.ts";
export * from "./upkeep.ts";
export * from "./consolidation.ts";
export * from "./supersession.ts";
