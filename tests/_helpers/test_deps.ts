/** @module Deps for tests: in-memory Deno KV, the offline model and the local embedder. */
import { abortableSleep } from "../../lib/abortable_sleep.ts";
import { openKvStorage } from "../../lib/kv/kv_storage.ts";
import { LocalEmbedder } from "../../lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "../../lib/offline/offline_language_model.ts";
import { RandomIdSource } from "../../lib/random_id_source.ts";
import type { Deps } from "../../src/deps.ts";
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
