/**
 * @module Deps for tests: in-memory Deno KV, the offline model and the local embedder; a model
 * that records which prompts were sent.
 */
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import type { Deps } from "../../src/deps.ts";
import type { LanguageModel } from "../../src/ports/language_model.ts";
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

/** `inner` (the offline model by default), recording the kind of every prompt sent to it. */
export function countingModel(
  inner: LanguageModel = new OfflineLanguageModel({}),
): { model: LanguageModel; kinds: string[] } {
  const kinds: string[] = [];
  return {
    kinds,
    model: {
      info: inner.info,
      complete(prompt, attribution) {
        kinds.push(prompt.kind);
        return inner.complete(prompt, attribution);
      },
    },
  };
}
