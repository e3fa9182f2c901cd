/** @module The `usage` object of responses that called a model. */
import { z } from "zod";

/** Calls and tokens spent by one request. */
export const UsageBody = z
  .object({
    calls: z.number().int(),
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
  })
  .meta({ id: "RequestUsage" });
