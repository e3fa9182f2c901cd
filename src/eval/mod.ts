/** @module Evaluation over whole runs: town simulations and the papers' emergent metrics (Generative Agents §7). */
export * from "./cost.ts";
export * from "./diffusion.ts";
export * from "./interview_measures.ts";
export * from "./memory_texts.ts";
export * from "./mrbench.ts";
export * from "./mrbench_suite.ts";
export * from "./believability.ts";
export * from "./believability_report.ts";
export * from "./network_density.ts";
export * from "./party_attendance.ts";
export * from "./simulate_town.ts";
export * from "./simulation_summary.ts";
