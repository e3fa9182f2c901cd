/** @module Prompt: summarise who an agent is from its stable identity and three retrievals, in one call (paper App. A). */
import { z } from "zod";
import type { AgentIdentity } from "../agent/mod.ts";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { clipLine, inertJson } from "./data_block.ts";

/**
 * Inputs of {@linkcode buildAgentSummaryPrompt}: the agent's stable identity and the memories
 * recalled for each aspect.
 */
export interface AgentSummaryInput {
  agentName: string;
  /** Who the agent is by its own documents: the profile starts from it. */
  identity: AgentIdentity;
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

/** A text compared with identity phrases: case, spacing and final punctuation ignored. */
function phraseKey(text: string): string {
  return text.replace(/\s+/g, " ").trim().replace(/[.;]+$/, "").toLowerCase();
}

/**
 * The memories of all three aspects, each shown once and numbered, and per aspect the numbers
 * of its memories in recall order. The three retrievals overlap heavily (the same few memories
 * about work and plans answer all three), so listing each aspect in full paid for most memories
 * three times; a memory stored twice with the same text is one number. A memory that says an
 * identity phrase again (a seed) is left out: the identity shows it already.
 */
function indexAspects(input: AgentSummaryInput): {
  memories: string[];
  aspects: { core: number[]; occupation: number[]; feeling: number[] };
} {
  const known = new Set(input.identity.description.map(phraseKey));
  const numbers = new Map<string, number>();
  const memories: string[] = [];
  const numbered = (list: readonly string[]) => [
    ...new Set(
      list.filter((m) => !known.has(phraseKey(m))).map((m) => {
        const line = clipLine(m, SUMMARY_MEMORY_CHARS);
        let n = numbers.get(line);
        if (n === undefined) {
          n = numbers.size + 1;
          numbers.set(line, n);
          memories.push(`${n}. ${line}`);
        }
        return n;
      }),
    ),
  ];
  const aspects = {
    core: numbered(input.core),
    occupation: numbered(input.occupation),
    feeling: numbered(input.feeling),
  };
  return { memories, aspects };
}

/** The identity as the prompt shows it: empty fields left out. */
function identityView(identity: AgentIdentity): Record<string, unknown> {
  const { description, traits, home, workplace, background } = identity;
  return {
    ...(description.length > 0 ? { description } : {}),
    ...(traits.length > 0 ? { traits } : {}),
    ...(home ? { home } : {}),
    ...(workplace ? { workplace } : {}),
    ...(background ? { background } : {}),
  };
}

/**
 * Builds the agent-summary prompt. The profile starts from the agent's stable identity (its
 * description, traits, home and workplace, a card's persona); the memories add what changed
 * since and how it feels. The paper makes three calls, one per aspect; we ask for all three in
 * one answer from the same three retrievals, listing each memory once.
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
      "You write a short, factual profile of a character in a life simulation, using only its identity and the memories you are given.",
      "The identity is who the character is by its own description: it holds unless a memory says it changed (a new job, a move, a break-up, a new plan). The memories are what happened since.",
      'Answer with JSON {"core": …, "occupation": …, "feeling": …}: one or two sentences each, in the third person, about the character\'s core characteristics, what they currently do day to day (their occupation), and how they feel about recent progress in their life.',
      "Each aspect comes with the numbers of the memories recalled for it, best first. Say an aspect is not known yet only when neither the identity nor the memories say anything about it.",
    ],
    user: [
      `Character: ${inertJson(input.agentName)}`,
      dataSection("Identity", "identity", identityView(input.identity)),
      dataSection("Memories, numbered", "memories", memories),
      dataSection("The memories recalled for each aspect", "aspects", aspects),
    ],
  });
}
