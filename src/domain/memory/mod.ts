/** @module Memories: the record, scoring (recency, importance, relevance), perceive's inputs and outputs. */
export * from "./embedding_vector.ts";
export * from "./importance.ts";
export * from "./listing.ts";
export * from "./memory_record.ts";
export * from "./perceive.ts";
export * from "./scoring.ts";
export * from "./upkeep.ts";
export * from "./archiving.ts";
export * from "./consolidation.ts";
