/** @module What a prompt module builds: the messages, the model tier and the answer's schema. */
import type { z } from "zod";

/** Cheap calls (importance, emoji, yes/no) go to the fast tier; plans, insights, dialogue to main. */
export type ModelTier = "main" | "fast";

/** One chat message. User, card and memory text only ever appears inside delimited data blocks. */
export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A prompt ready to send, as built by a module in `src/prompts/`. */
export interface Prompt<T> {
  /** The prompt's name, e.g. "importance"; fakes and the offline model dispatch on it. */
  kind: string;
  tier: ModelTier;
  messages: ChatMessage[];
  /** The shape the answer must have; the client validates it. */
  schema: z.ZodType<T>;
  /** The prompt's structured inputs, for the offline model to derive its answer from. */
  input: unknown;
  /** Upper bound on completion tokens. */
  maxTokens?: number;
}
