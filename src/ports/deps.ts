/** @module What core operations need from the outside world, passed in by the entry points. */
import type { IdSource } from "../domain/mod.ts";
import type { Embedder } from "./embedder.ts";
import type { LanguageModel } from "./language_model.ts";
import type { Storage } from "./storage.ts";

/** The ports a running service wires together. */
export interface Deps {
  storage: Storage;
  model: LanguageModel;
  embedder: Embedder;
  ids: IdSource;
  /** Waits; resolves early when `signal` aborts. The core never touches timers itself. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}
