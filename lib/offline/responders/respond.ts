/** @module Offline responder for the "respond" prompt: an in-character turn built from the selected facet and recalled memories. */
import type { RespondPromptInput, RespondPromptOutput } from "../../../src/prompts/respond.ts";

const AI_QUESTION =
  /\b(?:are|r)\s+(?:you|u)\s+(?:an?\s+)?(?:ai|a\.i\.|bot|robot|chatbot|language model|real person|human|real)\b/i;
const CLAIM =
  /\b(?:you promised|you swore|you owe me|you said you would|you told me you|we agreed|remember when you)\b/i;
const PLAN_WORDS = /\b(?:should|must|need to|have to|go|plan|today|tonight|tomorrow|instead)\b/i;

function clip(text: string, max: number): string {
  const t = text.trim().replace(/\s+/g, " ").replace(/[.;!?]+$/, "");
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

function firstClause(text: string): string | null {
  const clause = text.split(/[.;,]/)[0]?.trim() ?? "";
  return clause.length > 0 ? clip(clause, 120).toLowerCase() : null;
}

/**
 * Answers from the input alone, in this order: a sincere "are you an AI?" with disclosure on
 * gets the truth; a boundary hint gets uncertainty (`bounded: true`); the inner voice is taken
 * to heart (re-plan when it speaks of doing something); a claim about the character's past
 * that none of its own memories backs is not accepted; otherwise the reply brings up the best
 * memory, with the top facet's behaviour as the action and its emotion as the thought.
 */
export function answerRespond(input: unknown): RespondPromptOutput {
  const i = input as RespondPromptInput;
  const facet = i.facets[0];
  const actions = facet ? firstClause(facet.behavior_pattern) : null;
  const thoughts = facet?.emotional_state ? `Feeling ${clip(facet.emotional_state, 100)}` : null;
  const to = i.speaker ? `, ${i.speaker.name}` : "";
  if (i.disclosure && AI_QUESTION.test(i.message)) {
    return {
      reply: `Honestly${to}? Yes: I'm an AI character playing ${i.agentName} in this world.`,
      thoughts: null,
      actions: null,
      bounded: false,
      importance: 3,
    };
  }
  if (i.boundaryHints.length > 0) {
    return {
      reply: "I can't know that from where I stand today. Anything I said would only be a guess.",
      thoughts,
      actions: null,
      bounded: true,
      importance: 2,
    };
  }
  if (i.mode === "inner_voice") {
    return {
      reply: `I should listen to that: ${clip(i.message, 300)}.`,
      thoughts: clip(i.message, 300),
      actions: null,
      bounded: false,
      importance: 5,
      replan: PLAN_WORDS.test(i.message),
    };
  }
  if (CLAIM.test(i.message)) {
    const backed = i.memories.some((m) =>
      !m.source.startsWith("told_by:") && /\bpromis|\bagree|\bowe/i.test(m.text)
    );
    if (!backed) {
      return {
        reply: `I don't remember anything like that${to}. I'm sure I never agreed to it.`,
        thoughts: "That does not match anything I remember",
        actions: null,
        bounded: false,
        importance: 4,
      };
    }
  }
  const memory = i.memories.find((m) => !m.source.startsWith("told_by:")) ?? i.memories[0];
  const opening = i.history.length === 0 ? `Hello${to}.` : "I see.";
  const about = memory ? ` ${clip(memory.text, 200)}.` : " What can I do for you?";
  return {
    reply: `${opening}${about}`,
    thoughts,
    actions,
    bounded: false,
    importance: 3,
  };
}
