/** @module The mind: calls to the language model and the embedder, one cognitive step per file. */
export * from "./agent_summary.ts";
export * from "./day_plan.ts";
export * from "./dialogue_line.ts";
export * from "./facet_selection.ts";
export * from "./importance.ts";
export * from "./item_plan.ts";
export * from "./memory_embedding.ts";
export * from "./object_state.ts";
export * from "./persona_build.ts";
export * from "./plan_actions.ts";
export * from "./query_embedding.ts";
export * from "./reaction_decision.ts";
export * from "./reflection_insights.ts";
export * from "./reflection_questions.ts";
export * from "./reply_stream.ts";
export * from "./seeded_model.ts";
export * from "./tick_observations.ts";
