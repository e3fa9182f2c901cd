/** @module A world as one file: export, import, fork. */
export * from "./export_world.ts";
export * from "./import_world.ts";
export * from "./restore_usage.ts";
export * from "./world_documents.ts";
