/**
 * @module Deps for tests: in-memory Deno KV, the offline model and the local embedder; a model
 * that records which prompts were sent, and one that cannot be reached.
 */
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import type { Deps } from "../../src/ports/deps.ts";
import type { Attribution } from "../../src/domain/usage.ts";
import type { LanguageModel, Prompt } from "../../src/ports/language_model.ts";
import { ModelUnavailableError } from "../../src/domain/errors.ts";
import type { Storage } from "../../src/ports/storage.ts";

/** Fresh, isolated deps; close them with `await using`. */
export async function makeTestDeps(
  overrides: Partial<Deps> = {},
): Promise<Deps & AsyncDisposable> {
  const embedder = overrides.embedder ?? new LocalEmbedder({ dimensions: 384 });
  const storage: Storage = overrides.storage ??
    await openKvStorage({ dimensions: embedder.info.dimensions });
  return {
    storage,
    model: overrides.model ?? new OfflineLanguageModel({}),
    embedder,
    ids: overrides.ids ?? new RandomIdSource(),
    sleep: overrides.sleep ?? abortableSleep,
    async [Symbol.asyncDispose]() {
      await storage.close();
    },
  };
}

/** A prompt sent to a {@linkcode countingModel}, with whom it was for. */
export interface SentPrompt {
  prompt: Prompt<unknown>;
  attribution: Attribution;
}

/**
 * `inner` (the offline model by default), recording every prompt sent to it: `kinds` lists
 * their kinds in order, `sent` the prompts themselves with their attribution.
 */
export function countingModel(
  inner: LanguageModel = new OfflineLanguageModel({}),
): { model: LanguageModel; kinds: string[]; sent: SentPrompt[] } {
  const kinds: string[] = [];
  const sent: SentPrompt[] = [];
  return {
    kinds,
    sent,
    model: {
      info: inner.info,
      complete(prompt, attribution) {
        kinds.push(prompt.kind);
        sent.push({ prompt: prompt as Prompt<unknown>, attribution });
        return inner.complete(prompt, attribution);
      },
    },
  };
}

/** A model whose every call finds the endpoint unreachable (`model_unavailable`). */
export function unreachableModel(): LanguageModel {
  return {
    info: new OfflineLanguageModel({}).info,
    complete: () =>
      Promise.reject(new ModelUnavailableError("model_unavailable", "Cannot reach the model")),
  };
}
