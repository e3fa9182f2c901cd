/** @module Reflection, planning, reaction, dialogue and summaries, run inside an operation's transaction (Generative Agents §4). */
export * from "./agent_summary.ts";
export * from "./conversation_key.ts";
export * from "./conversation_state.ts";
export * from "./conversation_writes.ts";
export * from "./dialogue.ts";
export * from "./plan_decompose.ts";
export * from "./plan_requests.ts";
export * from "./plan_store.ts";
export * from "./planning.ts";
export * from "./reaction.ts";
export * from "./read_conversation.ts";
export * from "./reflection.ts";
export * from "./group_dialogue.ts";
export * from "./group_talk.ts";
export * from "./overhearing.ts";
export * from "./player_talk.ts";
export * from "./talk_context.ts";
