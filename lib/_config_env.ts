/** @module Private to lib/: the environment variables the configuration reads, their schemas and defaults. */
import { z } from "zod";

/** Known embedding models and their native dimensions, so users need not look them up. */
export const knownEmbeddingDimensions: Record<string, number> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
  "nomic-embed-text": 768,
  "mxbai-embed-large": 1024,
  "all-minilm": 384,
};

/** Defaults of unset variables. */
export const DEFAULTS = {
  openAiModel: "gpt-4o-mini",
  openAiEmbedding: "text-embedding-3-small",
  localDimensions: 384,
  /** The embedded store's cache budget: room for ~40,000 memories with 384-dimension vectors. */
  cacheMb: 256,
};

const blankIsUnset = (v: unknown) => (typeof v === "string" && v.trim() === "" ? undefined : v);
const optionalString = z.preprocess(blankIsUnset, z.string().trim().optional());
const optionalUrl = z.preprocess(
  blankIsUnset,
  z.url({ protocol: /^https?$/, error: "must be an http(s) URL" }).optional(),
);
const optionalInt = (min: number, max: number) =>
  z.preprocess(
    blankIsUnset,
    z.coerce.number({ error: "must be a whole number" }).int("must be a whole number").min(
      min,
      `must be at least ${min}`,
    ).max(max, `must be at most ${max}`).optional(),
  );

/** The environment variables read, each validated on its own. */
export const EnvSchema = z.object({
  PORT: optionalInt(1, 65535),
  SIMULACRA_DATA_DIR: optionalString,
  SIMULACRA_CACHE_MB: optionalInt(16, 1_048_576),
  SIMULACRA_ADMIN_KEY: z.preprocess(
    blankIsUnset,
    z.string().min(16, "must be at least 16 characters (e.g. `openssl rand -hex 24`)").optional(),
  ),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: optionalUrl,
  SIMULACRA_MODEL: optionalString,
  SIMULACRA_FAST_MODEL: optionalString,
  SIMULACRA_JUDGE_MODEL: optionalString,
  SIMULACRA_JUDGE_BASE_URL: optionalUrl,
  SIMULACRA_JUDGE_API_KEY: optionalString,
  SIMULACRA_EMBEDDING_MODEL: optionalString,
  SIMULACRA_EMBEDDING_DIMENSIONS: optionalInt(8, 8192),
  UPSTASH_REDIS_REST_URL: optionalUrl,
  UPSTASH_REDIS_REST_TOKEN: optionalString,
  UPSTASH_VECTOR_REST_URL: optionalUrl,
  UPSTASH_VECTOR_REST_TOKEN: optionalString,
  SIMULACRA_KEY_RATE_LIMIT: z.preprocess(
    blankIsUnset,
    z.string().trim().regex(
      /^[1-9]\d{0,6}\/[1-9]\d{0,4}$/,
      'must be "<requests>/<seconds>", e.g. 120/60',
    ).optional(),
  ),
  SIMULACRA_AUDIT_RETENTION_DAYS: optionalInt(1, 3650),
  SIMULACRA_CLIENT_IP_HEADER: z.preprocess(
    blankIsUnset,
    z.string().trim().toLowerCase().regex(
      /^[a-z0-9-]{1,64}$/,
      "must be a header name, e.g. x-forwarded-for",
    )
      .optional(),
  ),
  SIMULACRA_CORS_ORIGINS: optionalString,
  SIMULACRA_BODY_TIMEOUT_MS: optionalInt(100, 3_600_000),
});
/** The parsed variables. */
export type Env = z.infer<typeof EnvSchema>;
