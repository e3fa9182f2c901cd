/** @module The `usage` object of responses that called a model. */
import { UsageCounts } from "../src/domain/mod.ts";

/** Calls and tokens spent by one request. */
export const UsageBody = UsageCounts.meta({ id: "RequestUsage" });
