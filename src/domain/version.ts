/** @module The service version reported by /health and the OpenAPI document. */

/** Semantic version of this build. */
export const VERSION = "0.1.0";
