/** @module Usage accounting: calls and tokens, attributed to world, agent and operation. */
import { z } from "zod";

/** Who a model call was made for. */
export interface Attribution {
  worldId?: string;
  agentId?: string;
  /** What the call was for, e.g. "importance", "reflection.insights". */
  operation: string;
  /**
   * The world's `seed` setting, for a model that makes choices of its own (the offline one):
   * the same seed makes the same choices. Ledgers ignore it.
   */
  seed?: number;
}

/** Calls and tokens of one or more model calls. */
export interface Usage {
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /**
   * Of `promptTokens`, those the provider served from its prompt cache (a prefix repeated from
   * an earlier call: billed at a fraction, or prefill skipped); absent when it reported none.
   */
  cachedPromptTokens?: number;
}

/**
 * The one schema of {@linkcode Usage} in API bodies. It has no OpenAPI id of its own: a body that
 * wants a named component gives it one with `.meta({ id })`.
 */
export const UsageCounts = z.object({
  calls: z.number().int(),
  promptTokens: z.number().int(),
  completionTokens: z.number().int(),
  cachedPromptTokens: z.number().int().optional().meta({
    description:
      "Of the prompt tokens, those the model provider served from its prompt cache (a prefix repeated from an earlier call); absent or 0 when it reported none",
  }),
});

/** One call's usage with its attribution and the model that served it. */
export interface UsageRecord extends Attribution, Usage {
  model: string;
  /** True when the tokens were counted by us because the provider gave no usage. */
  estimated: boolean;
}

/** Receives every call's usage as it happens. */
export type UsageSink = (record: UsageRecord) => void | Promise<void>;

/** Zero usage. */
export function emptyUsage(): Usage {
  return { calls: 0, promptTokens: 0, completionTokens: 0 };
}

/** The sum of usages. */
export function addUsage(...usages: readonly Usage[]): Usage {
  const total = emptyUsage();
  for (const u of usages) {
    total.calls += u.calls;
    total.promptTokens += u.promptTokens;
    total.completionTokens += u.completionTokens;
    if (u.cachedPromptTokens !== undefined) {
      total.cachedPromptTokens = (total.cachedPromptTokens ?? 0) + u.cachedPromptTokens;
    }
  }
  return total;
}

/** Model calls and tokens (prompt plus completion) counted against a budget. */
export interface Spend {
  calls: number;
  tokens: number;
}
