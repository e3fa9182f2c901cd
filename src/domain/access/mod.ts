/** @module API keys: permissions, scopes and principals, as pure rules. */
export * from "./api_key.ts";
