/**
 * @module Cost per agent per game day: the unit the budget is set in (BENCHMARKS.md).
 * @see BENCHMARKS.md; issue 6 budget: ≤ 60 calls and ≤ 60,000 tokens per agent-day
 */
import type { Usage } from "../domain/mod.ts";

/** Calls and tokens (prompt + completion) per agent per 24 game hours. */
export interface PerAgentDay {
  calls: number;
  tokens: number;
}

/** Usage scaled to one agent and one game day; zeros when no agent or no time took part. */
export function perAgentDay(usage: Usage, agents: number, gameHours: number): PerAgentDay {
  const agentDays = agents * (gameHours / 24);
  if (!(agentDays > 0)) return { calls: 0, tokens: 0 };
  return {
    calls: usage.calls / agentDays,
    tokens: (usage.promptTokens + usage.completionTokens) / agentDays,
  };
}
