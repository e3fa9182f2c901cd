/** @module Prompt: should an agent carry on, react, or start talking after an observation (Generative Agents §4.3). */
import { z } from "zod";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { clipLine, profileText } from "./data_block.ts";
import type { BondShown } from "../social/mod.ts";

/** Inputs of {@linkcode buildReactionPrompt}. */
export interface ReactionInput {
  /** The observer. */
  agentName: string;
  /** The observer's cached summary (identity, occupation, feelings). */
  summary: string;
  /** Game time of the observation, e.g. "2023-02-13T16:56:00". */
  now: string;
  /** What the observer is doing according to its plan; null when it has none. */
  currentAction: string | null;
  /** What the observer just noticed. */
  observations: string[];
  /** The other agent in the observation; null when it involves no agent (then "talk" is not offered). */
  observed: { name: string; status: string } | null;
  /** Memories recalled for "<observer>'s relationship with <observed>". */
  relationship: string[];
  /** Memories recalled for "<observed> is <status>" (or for the observation itself). */
  context: string[];
  /**
   * How the observer feels about the observed agent, from its memories (issue 22); absent or
   * null when they never met.
   */
  bond?: BondShown | null;
}

/** Longest memory line the prompt shows, in characters; longer ones are cut with "…". */
export const REACTION_MEMORY_CHARS = 160;

/** Memories as one clipped line each, leaving out those already shown in `shown`. */
function lines(memories: readonly string[], shown: readonly string[] = []): string[] {
  const seen = new Set(shown);
  return memories.filter((m) => !seen.has(m)).map((m) => clipLine(m, REACTION_MEMORY_CHARS));
}

/** The three ways an agent can answer an observation. */
export const ReactionDecision = z
  .enum(["continue", "react", "talk"])
  .meta({
    id: "ReactionDecision",
    description:
      "continue: keep the plan; react: do something else now (the plan is remade); talk: start a conversation with the observed agent",
  });
export type ReactionDecision = z.infer<typeof ReactionDecision>;

/** The decision, a one-sentence reason, and for react/talk what to do or talk about. */
export const ReactionOutput = z.object({
  decision: ReactionDecision,
  reason: z.string().min(1).max(400),
  reaction: z.string().min(1).max(300).nullable().optional(),
});
export type ReactionOutput = z.infer<typeof ReactionOutput>;

/** The output schema; without an observed agent "talk" is not a valid answer. */
export function reactionSchema(canTalk: boolean): z.ZodType<ReactionOutput> {
  return canTalk
    ? ReactionOutput
    : ReactionOutput.extend({ decision: ReactionDecision.exclude(["talk"]) });
}

/**
 * Builds the reaction prompt (fast tier). The paper first summarises the two retrievals in a
 * separate call and then asks whether to react; to save one call per observation we hand the
 * recalled memories straight to this one call, which weighs them and decides.
 * @see Generative Agents §4.3 "Reacting"; Park et al. 2023 §4.3.2.
 */
export function buildReactionPrompt(input: ReactionInput): Prompt<ReactionOutput> {
  const canTalk = input.observed !== null;
  const options = [
    '- "continue": carry on with the current activity. This fits most observations: ordinary sights, routine events, people who are busy.',
    '- "react": drop the current activity to deal with what happened; put the new activity in "reaction" as a short phrase, e.g. "turn off the stove".',
  ];
  if (canTalk) {
    options.push(
      '- "talk": go and speak with the person observed; put what the character wants to talk about in "reaction".',
    );
  }
  return chatPrompt({
    kind: "reaction",
    tier: "fast",
    input,
    schema: reactionSchema(canTalk),
    maxTokens: 160,
    rules: [
      "You decide how a character in a life simulation responds to something they just noticed, judging from their profile, what they are doing now and what they remember.",
      "Choose one option:",
      ...options,
      "Stay in character and be realistic: people rarely interrupt what they are doing without a reason, and they seldom disturb someone who is asleep or occupied.",
      'Answer with JSON {"decision": …, "reason": …, "reaction": …}. "reason" is one short sentence; "reaction" is null when the decision is "continue".',
    ],
    // Who the character is first (the same on each of its calls), then the moment.
    user: [
      dataSection("The character", "character", {
        name: input.agentName,
        profile: profileText(input.summary),
      }),
      `Game time: ${input.now}`,
      dataSection(
        "What the character is doing now",
        "current_action",
        input.currentAction ?? "nothing planned",
      ),
      dataSection("What the character just noticed", "observations", input.observations),
      ...(input.observed === null ? [] : [
        dataSection("The person observed and what they are doing", "observed", input.observed),
      ]),
      dataSection(
        "What the character remembers about their relationship with it",
        "relationship",
        lines(input.relationship),
      ),
      ...(input.bond
        ? [dataSection("How the character feels about them", "bond", input.bond)]
        : []),
      dataSection(
        "Other memories about what is happening",
        "context",
        lines(input.context, input.relationship),
      ),
    ],
  });
}
