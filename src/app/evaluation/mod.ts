/** @module Evaluations of agents and worlds: MREval with a calibrated judge, and the emergent measures by interview. */
export * from "./character_input.ts";
export * from "./evaluate_agent.ts";
export * from "./evaluate_schema.ts";
export * from "./probe_runs.ts";
export * from "./probes.ts";
export * from "./rank_answers.ts";
export * from "./scoring.ts";
export * from "./variants.ts";
export * from "./world_metrics.ts";
export * from "./world_metrics_schema.ts";
