/** @module Port: structured chat completions validated against a zod schema. */
import type { Attribution, ChatMessage, ModelTier, Prompt, Usage } from "../domain/mod.ts";

export type { ChatMessage, ModelTier, Prompt };

/** A validated answer and what it cost. */
export interface Completion<T> {
  value: T;
  usage: Usage;
  model: string;
}

/** Describes a model for `/health`. */
export interface ModelInfo {
  mode: "offline" | "openai";
  main: string;
  fast: string;
}

/**
 * Structured completions. Retries timeouts, 429 and 5xx with backoff; re-asks once when the
 * output is malformed. Throws `model_timeout`, `model_unavailable`, `rate_limited` or
 * `model_invalid_output` (after the repair attempt) — never returns an invalid value.
 */
export interface LanguageModel {
  readonly info: ModelInfo;
  complete<T>(prompt: Prompt<T>, attribution: Attribution): Promise<Completion<T>>;
  /**
   * Checks that the model's endpoint answers and accepts the key, spending no tokens (the deep
   * health check). Absent when nothing remote is involved, as with the offline model.
   * @throws `model_unavailable` or `model_timeout` naming the endpoint.
   */
  probe?(): Promise<void>;

  /**
   * Like {@linkcode complete}, but hands each piece of the answer's raw text (the JSON as the
   * model writes it) to `options.onText` as it arrives. Resolves to the validated answer once
   * the answer is complete; when it is malformed, the repair attempt is not streamed. Models
   * without it are used through `complete` (the whole answer arrives at once).
   */
  stream?<T>(
    prompt: Prompt<T>,
    attribution: Attribution,
    options: StreamOptions,
  ): Promise<Completion<T>>;
}

/** Options of {@linkcode LanguageModel.stream}. */
export interface StreamOptions {
  /** Receives each piece of raw answer text, in order. */
  onText: (text: string) => void;
}
