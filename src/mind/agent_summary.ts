/** @module The agent summary's three aspects, written from the agent's identity and the memories recalled for each (paper App. A). */
import type { Deps } from "../ports/mod.ts";
import {
  type AgentContext,
  type AgentIdentity,
  type AgentSummaryOutput,
  buildAgentSummaryPrompt,
  type Usage,
} from "../domain/mod.ts";
import { completeFor } from "./_complete.ts";

/** The agent's stable identity and the descriptions of the memories recalled for each aspect. */
export interface SummaryEvidence {
  identity: AgentIdentity;
  core: string[];
  occupation: string[];
  feeling: string[];
}

/**
 * Core characteristics, daily occupation and feeling about progress, from the identity and what
 * the memories add: one `agent_summary` call.
 */
export async function summarizeAgent(
  deps: Pick<Deps, "model">,
  ctx: AgentContext,
  evidence: SummaryEvidence,
): Promise<{ value: AgentSummaryOutput; usage: Usage }> {
  return await completeFor(deps, ctx, {
    prompt: buildAgentSummaryPrompt({ agentName: ctx.agent.name, ...evidence }),
    operation: "agent_summary",
  });
}
