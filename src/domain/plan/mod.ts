/** @module Plans of the day: items, spans and places (Generative Agents §4.3). */
export * from "./plan.ts";
export * from "./plan_places.ts";
export * from "./plan_spans.ts";
export * from "./replan.ts";
