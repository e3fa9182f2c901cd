/**
 * @module Wires the configuration into the running service, the one place every entry (`main.ts`,
 * `worker.ts`, `cli/`) builds it: storage, model and embedder as the core's `Deps`, budget
 * metering for the cron and the queue's consumer, the platform's queue, passed explicitly to
 * whatever ticks, and the ready-made towns (`towns/`) worlds can be created from.
 */
import type {
  Deps,
  Embedder,
  LanguageModel,
  Storage,
  TickMessage,
  TickQueue,
} from "./src/ports/mod.ts";
import {
  consumeTickMessage,
  ensureEmbeddingMatches,
  runScheduledTick,
  type ScheduledRun,
  tickKeyId,
  type TownCatalog,
} from "./src/app/mod.ts";
import type { UsageRecord } from "./src/domain/mod.ts";
import { meteredDeps, spendRecorder, spendsInHook } from "./lib/access/budget_meter.ts";
import { runInRequest } from "./lib/access/request_context.ts";
import type { Config, StorageConfig } from "./lib/config.ts";
import type { Logger } from "./lib/logger.ts";
import { judgeModel } from "./lib/judge_model.ts";
import { LocalEmbedder } from "./lib/offline/local_embedder.ts";
import { OfflineLanguageModel } from "./lib/offline/offline_language_model.ts";
import { OpenAiEmbedder } from "./lib/openai/openai_embedder.ts";
import { OpenAiLanguageModel } from "./lib/openai/openai_language_model.ts";
import { abortableSleep } from "./lib/abortable_sleep.ts";
import { CachedEmbedder } from "./lib/cached_embedder.ts";
import { RandomIdSource } from "./lib/random_id_source.ts";
import { openUpstashStorage } from "./lib/upstash/upstash_storage.ts";
import { TOWNS } from "./towns/mod.ts";

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

/** The running service's parts, as {@linkcode wireServices} builds them. */
export interface Services {
  /** The ports (model calls not metered: `createApp` meters its routes' own). */
  deps: Deps;
  /** The ready-made towns a `template` names (the shipped ones, `towns/`). */
  towns: TownCatalog;
  /** What `createApp` takes from the configuration, the tick queue and the towns among it. */
  app: {
    adminKey?: string;
    keyRateLimit?: Config["keyRateLimit"];
    auditRetentionDays?: number;
    clientIpHeader?: string;
    corsOrigins?: Config["corsOrigins"];
    bodyTimeoutMs?: number;
    tickQueue?: TickQueue;
    towns: TownCatalog;
    /** The judge evaluations ask (SIMULACRA_JUDGE_MODEL, else the offline judge). */
    judge: LanguageModel;
  };
  /** The minute cron for `scheduledAt` (ms): every cron world ticked, its model calls metered. */
  tick(scheduledAt: number): Promise<ScheduledRun>;
  /**
   * Handles one delivered tick message, its model calls metered as the request that started the
   * tick (its world's and its key's); needs the queue.
   */
  consume(message: TickMessage): Promise<void>;
}

/**
 * Opens the services ({@linkcode openServices}) and wires them for an entry: with `queue`, ticks
 * (the cron's and the routes') send their steps through it and `consume` handles its messages;
 * without it every tick steps its agents in the call.
 * @throws as {@linkcode openServices}.
 */
export async function wireServices(
  config: Config,
  options: OpenServicesOptions & { queue?: TickQueue },
): Promise<Services> {
  const deps = await openServices(config, options);
  const { queue } = options;
  // The cron's and the consumer's model calls count against world budgets as the routes' do.
  const metered = meteredDeps(deps);
  return {
    deps,
    towns: TOWNS,
    app: {
      adminKey: config.adminKey,
      keyRateLimit: config.keyRateLimit,
      auditRetentionDays: config.auditRetentionDays,
      clientIpHeader: config.clientIpHeader,
      corsOrigins: config.corsOrigins,
      bodyTimeoutMs: config.bodyTimeoutMs,
      tickQueue: queue,
      towns: TOWNS,
      judge: judgeModel(config.judge),
    },
    tick: (scheduledAt) => runScheduledTick(metered, scheduledAt, { queue }),
    consume: async (message) => {
      if (!queue) throw new TypeError("Cannot consume tick messages without a tick queue");
      // A queued step or close runs outside the request that started its tick: it runs as that
      // request's key (the tick's plan keeps it), so the key is charged as for an inline step.
      const keyId = await tickKeyId(metered, message);
      return await runInRequest({ keyId }, () => consumeTickMessage(metered, message, queue));
    },
  };
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
  const spend = spendRecorder(storage.usage);
  const onUsage = async (record: UsageRecord) => {
    try {
      // With the budget spend: one request for both on the hosted backend (issue 25).
      await Promise.all([storage.usage.add(record), spend(record)]);
    } catch (err) {
      // Accounting must never fail the call it accounts for.
      logger.log("warn", "usage not recorded", { operation: record.operation, error: err });
    }
  };
  const model = spendsInHook(languageModel(config, onUsage));
  // Queries repeat (summary aspects, names, topics): remember recent vectors in process. A
  // local embedder's calls are free (no usage, no spend).
  const embedder = spendsInHook(new CachedEmbedder(embedderFor(config, onUsage)));
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
