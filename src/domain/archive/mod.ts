/** @module The archive format: a whole world as one NDJSON file. */
export * from "./archive_format.ts";
export * from "./memory_line_check.ts";
