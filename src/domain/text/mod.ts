/** @module Text hygiene at the edge: control characters, JSON depth, names that look alike. */
export * from "./hygiene.ts";
export * from "./names.ts";
