/** @module Ready-made towns: what a town is, and building a world from one the caller offers. */
export * from "./build_town.ts";
export * from "./create_from_template.ts";
export * from "./town.ts";
