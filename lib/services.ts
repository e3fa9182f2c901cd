/** @module Wires the configured storage, model and embedder into the core's `Deps`. */
import type { Deps } from "../src/deps.ts";
import { ensureEmbeddingMatches } from "../src/memory/embedding_check.ts";
import type { UsageRecord } from "../src/model/usage.ts";
import type { Embedder } from "../src/ports/embedder.ts";
import type { LanguageModel } from "../src/ports/language_model.ts";
import type { Storage } from "../src/ports/storage.ts";
import type { Config, StorageConfig } from "./config.ts";
import type { Logger } from "./logger.ts";
import { LocalEmbedder } from "./offline/local_embedder.ts";
import { OfflineLanguageModel } from "./offline/offline_language_model.ts";
import { OpenAiEmbedder } from "./openai/openai_embedder.ts";
import { OpenAiLanguageModel } from "./openai/openai_language_model.ts";
import { abortableSleep } from "./abortable_sleep.ts";
import { CachedEmbedder } from "./cached_embedder.ts";
import { RandomIdSource } from "./random_id_source.ts";
import { openUpstashStorage } from "./upstash/upstash_storage.ts";

/** Opens the embedded store; only the Deno entry passes one (Workers have no disk). */
export type EmbeddedOpener = (
  dataDir: string,
  dimensions: number,
  options: { cacheBytes: number },
) => Promise<Storage>;

/** Options for {@linkcode openServices}. */
export interface OpenServicesOptions {
  logger: Logger;
  /** Required when the configuration selects the embedded store. */
  openEmbedded?: EmbeddedOpener;
}

/**
 * Opens storage, builds the model and embedder, and checks that stored embeddings match the
 * embedder. Usage of every model call is added to the store's ledger as it happens.
 *
 * @throws `config_error` when the embedder and the store disagree, `store_unavailable` when
 * the store does not answer.
 */
export async function openServices(config: Config, options: OpenServicesOptions): Promise<Deps> {
  const { logger } = options;
  const storage = await openStorage(
    config.storage,
    config.embedding.dimensions,
    options.openEmbedded,
  );
  const onUsage = async (record: UsageRecord) => {
    try {
      await storage.usage.add(record);
    } catch (err) {
      // Accounting must never fail the call it accounts for.
      logger.log("warn", "usage not recorded", { operation: record.operation, error: err });
    }
  };
  const model = languageModel(config, onUsage);
  // Queries repeat (summary aspects, names, topics): remember recent vectors in process.
  const embedder = new CachedEmbedder(embedderFor(config, onUsage));
  try {
    await storage.ping();
    await ensureEmbeddingMatches(storage.documents, storage.vectors.dimensions, embedder.info);
  } catch (err) {
    await storage.close();
    throw err;
  }
  return { storage, model, embedder, ids: new RandomIdSource(), sleep: abortableSleep };
}

function languageModel(
  config: Config,
  onUsage: (r: UsageRecord) => Promise<void>,
): LanguageModel {
  const m = config.model;
  if (m.mode === "offline") return new OfflineLanguageModel({ onUsage });
  return new OpenAiLanguageModel({
    apiKey: m.apiKey,
    baseURL: m.baseURL,
    mainModel: m.main,
    fastModel: m.fast,
    onUsage,
  });
}

function embedderFor(config: Config, onUsage: (r: UsageRecord) => Promise<void>): Embedder {
  const e = config.embedding;
  if (e.mode === "local") return new LocalEmbedder({ dimensions: e.dimensions });
  return new OpenAiEmbedder({
    apiKey: e.apiKey,
    baseURL: e.baseURL,
    model: e.model,
    dimensions: e.dimensions,
    onUsage,
  });
}

function openStorage(
  config: StorageConfig,
  dimensions: number,
  openEmbedded: EmbeddedOpener | undefined,
): Promise<Storage> {
  if (config.kind === "upstash") return openUpstashStorage(config);
  if (!openEmbedded) {
    throw new TypeError("Cannot open the embedded store on this runtime: configure Upstash");
  }
  return openEmbedded(config.dataDir, dimensions, { cacheBytes: config.cacheMb * 1024 * 1024 });
}
