/** @module Ready-made towns: the example town's data and building a world from it. */
export * from "./build_town.ts";
export * from "./create_from_template.ts";
export * from "./smallville.ts";
