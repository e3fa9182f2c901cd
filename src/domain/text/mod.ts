/** @module Text hygiene at the edge: control characters, JSON depth. */
export * from "./hygiene.ts";
