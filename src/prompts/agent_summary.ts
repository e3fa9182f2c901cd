/** @module Prompt: summarise who an agent is from three retrievals, in one call (paper App. A). */
import { z } from "zod";
import type { Prompt } from "../ports/language_model.ts";
import { DATA_RULE, dataBlock, promptTag } from "./_data_block.ts";

/** Inputs of {@linkcode buildAgentSummaryPrompt}: memories recalled for each aspect. */
export interface AgentSummaryInput {
  agentName: string;
  /** Memories for "<name>'s core characteristics". */
  core: string[];
  /** Memories for "<name>'s current daily occupation". */
  occupation: string[];
  /** Memories for "<name>'s feeling about recent progress in life". */
  feeling: string[];
}

/** One or two sentences per aspect. */
export const AgentSummaryOutput = z.object({
  core: z.string().min(1).max(600),
  occupation: z.string().min(1).max(600),
  feeling: z.string().min(1).max(600),
});
export type AgentSummaryOutput = z.infer<typeof AgentSummaryOutput>;

/**
 * Builds the agent-summary prompt. The paper makes three calls, one per aspect; we ask for all
 * three in one answer from the same three retrievals.
 * @see SPEC §4 "Agent summary"; Park et al. 2023 Appendix A.
 */
export function buildAgentSummaryPrompt(input: AgentSummaryInput): Prompt<AgentSummaryOutput> {
  return {
    kind: "agent_summary",
    tier: "main",
    input,
    schema: AgentSummaryOutput,
    maxTokens: 400,
    messages: [
      {
        role: "system",
        content: [
          promptTag("agent_summary"),
          "You write a short, factual profile of a character in a life simulation, using only the memories you are given.",
          'Answer with JSON {"core": …, "occupation": …, "feeling": …}: one or two sentences each, in the third person, about the character\'s core characteristics, what they currently do day to day, and how they feel about recent progress in their life.',
          "If the memories say nothing about an aspect, say that it is not known yet.",
          DATA_RULE,
        ].join("\n"),
      },
      {
        role: "user",
        content: [
          `Character: ${JSON.stringify(input.agentName)}`,
          `Memories about core characteristics:\n${dataBlock("core", input.core)}`,
          `Memories about daily occupation:\n${dataBlock("occupation", input.occupation)}`,
          `Memories about feelings on recent progress:\n${dataBlock("feeling", input.feeling)}`,
        ].join("\n\n"),
      },
    ],
  };
}
