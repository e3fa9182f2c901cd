/** @module Configuration from environment variables, validated once at start-up. */
import { ConfigError } from "../src/domain/mod.ts";
import { DEFAULTS, type Env, EnvSchema, knownEmbeddingDimensions } from "./_config_env.ts";
import { type JudgeConfig, judgeConfig } from "./_judge_config.ts";

export type { JudgeConfig };

/** Which runtime is starting: Workers have no local disk, so no embedded store. */
export type Runtime = "deno" | "workers";

/** The model endpoint: the offline model, or an OpenAI-compatible server. */
export type ModelConfig =
  | { mode: "offline" }
  | { mode: "openai"; apiKey: string; baseURL?: string; main: string; fast: string };

/** The embedder: the local lexical one, or an OpenAI-compatible embeddings endpoint. */
export type EmbeddingConfig =
  | { mode: "local"; dimensions: number }
  | { mode: "openai"; apiKey: string; baseURL?: string; model: string; dimensions: number };

/** Where data lives. */
export type StorageConfig =
  | {
    kind: "embedded";
    dataDir: string;
    /** Budget of the in-process caches of memories and vectors, in MiB (SIMULACRA_CACHE_MB). */
    cacheMb: number;
  }
  | {
    kind: "upstash";
    redisUrl: string;
    redisToken: string;
    vectorUrl: string;
    vectorToken: string;
  };

/** The validated configuration. */
export interface Config {
  port: number;
  /** Unset: the server binds 127.0.0.1 only and /v1 needs no key. */
  adminKey?: string;
  /** The rate limit of API keys without their own (SIMULACRA_KEY_RATE_LIMIT, "120/60"). */
  keyRateLimit: { requests: number; perSeconds: number };
  /** Days audit entries are kept (SIMULACRA_AUDIT_RETENTION_DAYS, 30). */
  auditRetentionDays: number;
  /**
   * The header a trusted reverse proxy puts the client's address in (its first entry counts),
   * for the failed-auth back-off; unset, the connection's address (SIMULACRA_CLIENT_IP_HEADER).
   */
  clientIpHeader?: string;
  model: ModelConfig;
  /** The model evaluations use as judge (SIMULACRA_JUDGE_MODEL); unset: the offline judge. */
  judge: JudgeConfig;
  embedding: EmbeddingConfig;
  storage: StorageConfig;
  /**
   * Origins whose pages may call the API from a browser (CORS): `"*"` for any, or exact
   * origins. Unset: no CORS headers, so only same-origin pages (the playground) can.
   */
  corsOrigins?: "*" | string[];
  /**
   * How long reads of a request body may wait for the client in all, before a 408
   * (SIMULACRA_BODY_TIMEOUT_MS, 10 s).
   */
  bodyTimeoutMs: number;
}

/** Options for {@linkcode loadConfig}. */
export interface LoadConfigOptions {
  /** @default "deno" */
  runtime?: Runtime;
}

/**
 * Reads and validates the configuration from a plain environment record (entry points pass
 * `Deno.env.toObject()` or the Workers `env`).
 *
 * @throws {ConfigError} `config_error` listing every bad or half-given variable with its fix.
 */
export function loadConfig(
  env: Record<string, unknown>,
  options: LoadConfigOptions = {},
): Config {
  const runtime = options.runtime ?? "deno";
  const known = Object.fromEntries(
    Object.keys(EnvSchema.shape).map((k) => [k, typeof env[k] === "string" ? env[k] : undefined]),
  );
  const parsed = EnvSchema.safeParse(known);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${String(i.path[0])} ${i.message}`);
    throw configError(problems);
  }
  const e = parsed.data;
  const model = modelConfig(e);
  const embedding = embeddingConfig(e, model.value);
  const storage = storageConfig(e, runtime);
  const cors = corsConfig(e.SIMULACRA_CORS_ORIGINS);
  const judge = judgeConfig(e);
  const problems = [model, embedding, storage, cors, judge].flatMap((part) => part.problems);
  if (problems.length > 0) throw configError(problems);
  const corsOrigins = cors.value;
  const [requests, perSeconds] = (e.SIMULACRA_KEY_RATE_LIMIT ?? "120/60").split("/").map(Number);
  return {
    port: e.PORT ?? 8000,
    adminKey: e.SIMULACRA_ADMIN_KEY,
    keyRateLimit: { requests, perSeconds },
    auditRetentionDays: e.SIMULACRA_AUDIT_RETENTION_DAYS ?? 30,
    clientIpHeader: e.SIMULACRA_CLIENT_IP_HEADER,
    bodyTimeoutMs: e.SIMULACRA_BODY_TIMEOUT_MS ?? 10_000,
    model: model.value,
    judge: judge.value,
    embedding: embedding.value,
    storage: storage.value,
    ...(corsOrigins ? { corsOrigins } : {}),
  };
}

/** A part of the configuration, and what is wrong with the variables it reads (none: []). */
interface Checked<T> {
  value: T;
  problems: string[];
}

/**
 * `*`, or a comma list of origins (`scheme://host[:port]`, as a browser sends them in `Origin`).
 * A path, a trailing slash or a wildcard inside a list is refused: browsers never send those,
 * so such an entry would silently match nothing.
 */
function corsConfig(value: string | undefined): Checked<"*" | string[] | undefined> {
  if (value === undefined || value === "*") return { value, problems: [] };
  const origins: string[] = [];
  const problems: string[] = [];
  for (const entry of value.split(",").map((o) => o.trim()).filter((o) => o !== "")) {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      if (/^https?:$/.test(url.protocol) && url.origin === entry.toLowerCase()) origin = url.origin;
    } catch {
      // reported below
    }
    if (origin === undefined) {
      problems.push(
        `SIMULACRA_CORS_ORIGINS entry "${entry}" is not an origin: use "*" alone, or a comma list of scheme://host[:port] with no path or trailing slash (e.g. http://localhost:5173,https://game.example.com)`,
      );
    } else origins.push(origin);
  }
  if (origins.length === 0 && problems.length === 0) {
    problems.push(
      'SIMULACRA_CORS_ORIGINS is empty: set "*" or a comma list of origins, or unset it',
    );
  }
  return { value: origins, problems };
}

function configError(problems: string[]): ConfigError {
  return new ConfigError(
    `Cannot start with this configuration:\n  - ${problems.join("\n  - ")}`,
    { details: { problems } },
  );
}

function modelConfig(e: Env): Checked<ModelConfig> {
  const endpoint = e.OPENAI_API_KEY !== undefined || e.OPENAI_BASE_URL !== undefined;
  if (!endpoint) {
    const names = (["SIMULACRA_MODEL", "SIMULACRA_FAST_MODEL"] as const)
      .filter((name) => e[name] !== undefined);
    return {
      value: { mode: "offline" },
      problems: names.map((name) =>
        `${name} is set but no model endpoint is: set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (Ollama, vLLM, any OpenAI-compatible server), or unset ${name} to use the offline model`
      ),
    };
  }
  const problems = e.OPENAI_BASE_URL !== undefined && e.SIMULACRA_MODEL === undefined
    ? [
      "SIMULACRA_MODEL is required with OPENAI_BASE_URL: set it to a model your server serves (e.g. SIMULACRA_MODEL=llama3.1:8b for Ollama)",
    ]
    : [];
  const main = e.SIMULACRA_MODEL ?? DEFAULTS.openAiModel;
  const value: ModelConfig = {
    mode: "openai",
    // Local servers (Ollama, vLLM) accept any key; the SDK insists on one.
    apiKey: e.OPENAI_API_KEY ?? "not-needed",
    baseURL: e.OPENAI_BASE_URL,
    main,
    fast: e.SIMULACRA_FAST_MODEL ?? main,
  };
  return { value, problems };
}

function embeddingConfig(e: Env, model: ModelConfig): Checked<EmbeddingConfig> {
  const officialOpenAi = model.mode === "openai" && model.baseURL === undefined;
  const name = e.SIMULACRA_EMBEDDING_MODEL ??
    (officialOpenAi ? DEFAULTS.openAiEmbedding : undefined);
  if (name === undefined) {
    return {
      value: {
        mode: "local",
        dimensions: e.SIMULACRA_EMBEDDING_DIMENSIONS ?? DEFAULTS.localDimensions,
      },
      problems: [],
    };
  }
  if (model.mode !== "openai") {
    return {
      value: { mode: "local", dimensions: DEFAULTS.localDimensions },
      problems: [
        "SIMULACRA_EMBEDDING_MODEL is set but no model endpoint is: set OPENAI_API_KEY or OPENAI_BASE_URL, or unset SIMULACRA_EMBEDDING_MODEL to use the local embedder",
      ],
    };
  }
  const dimensions = e.SIMULACRA_EMBEDDING_DIMENSIONS ?? knownEmbeddingDimensions[name];
  const value: EmbeddingConfig = {
    mode: "openai",
    apiKey: model.apiKey,
    baseURL: model.baseURL,
    model: name,
    dimensions: dimensions ?? 0,
  };
  return {
    value,
    problems: dimensions !== undefined ? [] : [
      `SIMULACRA_EMBEDDING_DIMENSIONS is required for embedding model "${name}": set it to the model's vector size (e.g. 768)`,
    ],
  };
}

function storageConfig(e: Env, runtime: Runtime): Checked<StorageConfig> {
  const pairs = {
    redis: [e.UPSTASH_REDIS_REST_URL, e.UPSTASH_REDIS_REST_TOKEN] as const,
    vector: [e.UPSTASH_VECTOR_REST_URL, e.UPSTASH_VECTOR_REST_TOKEN] as const,
  };
  const missing = [
    ["UPSTASH_REDIS_REST_URL", pairs.redis[0]],
    ["UPSTASH_REDIS_REST_TOKEN", pairs.redis[1]],
    ["UPSTASH_VECTOR_REST_URL", pairs.vector[0]],
    ["UPSTASH_VECTOR_REST_TOKEN", pairs.vector[1]],
  ].filter(([, v]) => v === undefined).map(([k]) => k as string);
  if (missing.length === 0) {
    const value: StorageConfig = {
      kind: "upstash",
      redisUrl: pairs.redis[0]!,
      redisToken: pairs.redis[1]!,
      vectorUrl: pairs.vector[0]!,
      vectorToken: pairs.vector[1]!,
    };
    return { value, problems: [] };
  }
  const value: StorageConfig = {
    kind: "embedded",
    dataDir: e.SIMULACRA_DATA_DIR ?? "./.simulacra",
    cacheMb: e.SIMULACRA_CACHE_MB ?? DEFAULTS.cacheMb,
  };
  return { value, problems: embeddedStoreProblems(missing, runtime) };
}

/** Why the embedded store will not do: some hosted variables are set, or there is no disk. */
function embeddedStoreProblems(missing: readonly string[], runtime: Runtime): string[] {
  if (missing.length < 4) {
    return [
      `The hosted backend needs all four Upstash variables, but ${missing.join(", ")} ${
        missing.length === 1 ? "is" : "are"
      } not set: set ${
        missing.length === 1 ? "it" : "them"
      } (Upstash console → your database / index → REST API), or unset the others to use the embedded store`,
    ];
  }
  return runtime === "workers"
    ? [
      "Cloudflare Workers have no local disk for the embedded store: set UPSTASH_REDIS_REST_URL, UPSTASH_REDIS_REST_TOKEN, UPSTASH_VECTOR_REST_URL and UPSTASH_VECTOR_REST_TOKEN with `wrangler secret put`",
    ]
    : [];
}
