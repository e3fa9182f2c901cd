/** @module Personas and character cards: the Narrative Schema, card parsing and limits, reply prompts (Wang et al. 2026 §3.3). */
export * from "./bounds.ts";
export * from "./card_limits.ts";
export * from "./character_card.ts";
export * from "./cue_text.ts";
export * from "./persona.ts";
export * from "./reply_prompt.ts";
