/** @module The mind: calls to the language model and the embedder, one cognitive step per file. */
export * from "./dialogue_line.ts";
export * from "./facet_selection.ts";
export * from "./importance.ts";
export * from "./object_state.ts";
export * from "./reaction_decision.ts";
export * from "./reply_stream.ts";
export * from "./seeded_model.ts";
export * from "./tick_observations.ts";
