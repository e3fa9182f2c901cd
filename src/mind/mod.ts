/** @module The mind: calls to the language model and the embedder, one cognitive step per file. */
export * from "./facet_selection.ts";
export * from "./importance.ts";
export * from "./memory_embedding.ts";
export * from "./persona_build.ts";
export * from "./query_embedding.ts";
export * from "./reply_stream.ts";
