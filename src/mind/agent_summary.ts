/** @module The agent summary's three aspects, written from the memories recalled for each (paper App. A). */
import type { Deps } from "../ports/mod.ts";
import {
  type AgentContext,
  type AgentSummaryOutput,
  buildAgentSummaryPrompt,
  type Usage,
} from "../domain/mod.ts";
import { completeFor } from "./_complete.ts";

/** The descriptions of the memories recalled for each aspect of the summary. */
export interface SummaryEvidence {
  core: string[];
  occupation: string[];
  feeling: string[];
}

/** Core characteristics, daily occupation and feeling about progress: one `agent_summary` call. */
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
