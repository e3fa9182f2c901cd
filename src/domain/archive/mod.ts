/** @module The archive format: a whole world as one NDJSON file. */
export * from "./archive_format.ts";
