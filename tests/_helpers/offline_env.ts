/** @module The environment a spawned entry point gets in tests: offline model, embedded store. */

/**
 * Every variable that would select a real model, a hosted store or an admin key, blanked, so
 * a subprocess runs offline whatever the caller's environment says. Spread the variables a
 * test wants on top.
 */
export const OFFLINE_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "SIMULACRA_MODEL",
    "SIMULACRA_FAST_MODEL",
    "SIMULACRA_JUDGE_MODEL",
    "SIMULACRA_JUDGE_BASE_URL",
    "SIMULACRA_JUDGE_API_KEY",
    "SIMULACRA_EMBEDDING_MODEL",
    "SIMULACRA_EMBEDDING_DIMENSIONS",
    "SIMULACRA_ADMIN_KEY",
    "UPSTASH_REDIS_REST_URL",
    "UPSTASH_REDIS_REST_TOKEN",
    "UPSTASH_VECTOR_REST_URL",
    "UPSTASH_VECTOR_REST_TOKEN",
  ].map((name) => [name, ""]),
);
