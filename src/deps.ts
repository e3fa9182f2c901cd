/** @module What core operations need from the outside world, passed in by the entry points. */
import type { IdSource } from "./ids.ts";
import type { Embedder } from "./ports/embedder.ts";
import type { LanguageModel } from "./ports/language_model.ts";
import type { Storage } from "./ports/storage.ts";

/** The ports a running service wires together. */
export interface Deps {
  storage: Storage;
  model: LanguageModel;
  embedder: Embedder;
  ids: IdSource;
  /** Waits; resolves early when `signal` aborts. The core never touches timers itself. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}
