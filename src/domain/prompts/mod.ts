/** @module One module per prompt with its zod output schema; user, card and memory text only inside data blocks. */
export * from "./actions.ts";
export * from "./agent_summary.ts";
export * from "./data_block.ts";
export * from "./day_plan.ts";
export * from "./dialogue_line.ts";
export * from "./importance.ts";
export * from "./item_plan.ts";
export * from "./object_state.ts";
export * from "./persona_build.ts";
export * from "./prompt.ts";
export * from "./reaction.ts";
export * from "./reflection_insights.ts";
export * from "./reflection_questions.ts";
export * from "./respond.ts";
