/** @module Offline responder for the "agent_summary" prompt: sentences built from the recalled memories. */
import type { AgentSummaryInput, AgentSummaryOutput } from "../../../src/prompts/agent_summary.ts";

function sentence(memories: readonly string[], fallback: string): string {
  const picked = memories.slice(0, 2).map((m) => m.trim().replace(/[.;]+$/, ""));
  return picked.length === 0 ? fallback : `${picked.join("; ")}.`.slice(0, 600);
}

/** Answers from the first recalled memories of each aspect; says "not known yet" when none. */
export function answerAgentSummary(input: unknown): AgentSummaryOutput {
  const i = input as AgentSummaryInput;
  return {
    core: sentence(i.core, `Little is known yet about ${i.agentName}'s character.`),
    occupation: sentence(i.occupation, `${i.agentName}'s daily occupation is not known yet.`),
    feeling: sentence(
      i.feeling,
      `How ${i.agentName} feels about recent progress is not known yet.`,
    ),
  };
}
