/** @module Prompt: summarise who an agent is from three retrievals, in one call (paper App. A). */
import { z } from "zod";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { clipLine, inertJson } from "./data_block.ts";

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

/** Longest memory line the prompt shows, in characters; longer ones are cut with "…". */
export const SUMMARY_MEMORY_CHARS = 200;

/**
 * The memories of all three aspects, each shown once and numbered, and per aspect the numbers
 * of its memories in recall order. The three retrievals overlap heavily (the same few memories
 * about work and plans answer all three), so listing each aspect in full paid for most memories
 * three times.
 */
function indexAspects(input: AgentSummaryInput): {
  memories: string[];
  aspects: { core: number[]; occupation: number[]; feeling: number[] };
} {
  const numbers = new Map<string, number>();
  const memories: string[] = [];
  const numbered = (list: readonly string[]) =>
    list.map((m) => {
      const line = clipLine(m, SUMMARY_MEMORY_CHARS);
      let n = numbers.get(line);
      if (n === undefined) {
        n = numbers.size + 1;
        numbers.set(line, n);
        memories.push(`${n}. ${line}`);
      }
      return n;
    });
  const aspects = {
    core: numbered(input.core),
    occupation: numbered(input.occupation),
    feeling: numbered(input.feeling),
  };
  return { memories, aspects };
}

/**
 * Builds the agent-summary prompt. The paper makes three calls, one per aspect; we ask for all
 * three in one answer from the same three retrievals, listing each memory once.
 * @see Generative Agents §4.2 "Agent summary"; Park et al. 2023 Appendix A.
 */
export function buildAgentSummaryPrompt(input: AgentSummaryInput): Prompt<AgentSummaryOutput> {
  const { memories, aspects } = indexAspects(input);
  return chatPrompt({
    kind: "agent_summary",
    tier: "main",
    input,
    schema: AgentSummaryOutput,
    maxTokens: 320,
    rules: [
      "You write a short, factual profile of a character in a life simulation, using only the memories you are given.",
      'Answer with JSON {"core": …, "occupation": …, "feeling": …}: one or two sentences each, in the third person, about the character\'s core characteristics, what they currently do day to day, and how they feel about recent progress in their life.',
      "Each aspect comes with the numbers of the memories recalled for it, best first. If an aspect has none, or they say nothing about it, say that it is not known yet.",
    ],
    user: [
      `Character: ${inertJson(input.agentName)}`,
      dataSection("Memories, numbered", "memories", memories),
      dataSection("The memories recalled for each aspect", "aspects", aspects),
    ],
  });
}
