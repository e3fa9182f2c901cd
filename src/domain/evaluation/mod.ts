/** @module Evaluation's pure parts: MREval's metrics and calibration, anonymised personas. */
export * from "./anonymise.ts";
export * from "./density.ts";
export * from "./metrics.ts";
