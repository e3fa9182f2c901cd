/** @module Personas and cards in storage; in-character replies and interviews; the agent as the API shows it. */
export * from "./agent_view.ts";
export * from "./ask_in_character.ts";
export * from "./build_persona.ts";
export * from "./card_export.ts";
export * from "./card_import.ts";
export * from "./interview.ts";
export * from "./magic_if.ts";
export * from "./persona_store.ts";
export * from "./reply_session.ts";
export * from "./respond.ts";
export * from "./respond_schema.ts";
export * from "./speaker_policy.ts";
