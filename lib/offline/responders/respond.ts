/** @module Offline responder for the "respond" prompt: an in-character turn built from the selected facet and recalled memories. */
import type {
  RespondMemory,
  RespondPromptInput,
  RespondPromptOutput,
} from "../../../src/domain/mod.ts";
import { contentStems } from "../text.ts";
import { rateImportance } from "../importance_lexicon.ts";
import { clip, firstName, inFirstPerson, toSecondPerson } from "./_speech.ts";

const AI_QUESTION =
  /\b(?:are|r)\s+(?:you|u)\s+(?:an?\s+)?(?:ai|a\.i\.|bot|robot|chatbot|language model|real person|human|real)\b/i;
const CLAIM =
  /\b(?:you promised|you swore|you owe me|you said you would|you told me you|we agreed|remember when you)\b/i;
const PLAN_WORDS = /\b(?:should|must|need to|have to|go|plan|today|tonight|tomorrow|instead)\b/i;

/** Words of a question that say nothing about its subject. */
const QUESTION_WORDS = new Set(
  contentStems(
    "what who whom whose where when why how which tell know think remember say said happen happened thing things anything something everyone anyone someone lately today please",
  ),
);

function isQuestion(text: string): boolean {
  return /\?\s*$/.test(text) ||
    /^(?:what|who|where|when|why|how|which|do|does|did|is|are|can|could|will|would)\b/i.test(
      text.trim(),
    );
}

/** The content stems a message asks about, names of the two people left out. */
function subjectStems(i: RespondPromptInput): Set<string> {
  const names = new Set(contentStems(`${i.agentName} ${i.speaker?.name ?? ""}`));
  return new Set(
    contentStems(i.message).filter((s) => !QUESTION_WORDS.has(s) && !names.has(s)),
  );
}

/** The memory sharing most subject stems with the message (ties: the better-ranked one). */
function bestMemory(i: RespondPromptInput, asked: ReadonlySet<string>): RespondMemory | null {
  let best: RespondMemory | null = null;
  let bestScore = 0;
  for (const memory of i.memories) {
    // The character's own earlier replies repeat the question's words without answering it.
    if (/^I told /.test(memory.text)) continue;
    const stems = new Set(contentStems(memory.text));
    let score = 0;
    for (const s of asked) if (stems.has(s)) score++;
    if (score > bestScore) [best, bestScore] = [memory, score];
  }
  return best;
}

/** Whether the character's own knowledge (anchor, plan, facets) mentions any of the stems. */
function knowsOf(i: RespondPromptInput, asked: ReadonlySet<string>): boolean {
  const own = [
    i.anchor.summary,
    i.anchor.globalSummary,
    ...i.plan,
    ...i.facets.map((f) => `${f.title} ${f.situation}`),
    ...i.memories.map((m) => m.text),
  ].join(" ");
  const stems = new Set(contentStems(own));
  return [...asked].some((s) => stems.has(s));
}

/** A remembered item said back: someone's words quoted in reported speech, else the memory. */
function recount(memory: RespondMemory, i: RespondPromptInput): string {
  const told = /^(.+?) (?:told me that|said to .+?:) "(.*)"$/s.exec(memory.text);
  if (told) {
    const [, teller, words] = told;
    const said = clip(words, 200);
    if (i.speaker && teller === i.speaker.name) {
      return `You told me ${toSecondPerson(said.charAt(0).toLowerCase() + said.slice(1))}`;
    }
    return `${teller} told me: \u201c${said}.\u201d`;
  }
  return inFirstPerson(memory.text, i.agentName) ?? `I remember this: ${clip(memory.text, 200)}`;
}

/**
 * Answers from the input alone, in this order: a sincere "are you an AI?" with disclosure on
 * gets the truth; a boundary hint gets uncertainty (`bounded: true`); the inner voice is taken
 * to heart (re-plan when it speaks of doing something); a claim about the character's past
 * that none of its own memories backs is not accepted. A question is answered from the
 * recalled memory that shares most words with it ("What did I lose?" → "You told me you lost
 * your red scarf at the park"); a question about something neither the memories nor the
 * character's profile mention is out of its world, answered with uncertainty
 * (`bounded: true`). Anything else is acknowledged, with a related memory when there is one.
 */
export function answerRespond(input: unknown): RespondPromptOutput {
  const i = input as RespondPromptInput;
  const facet = i.facets[0];
  const actions = facet ? firstClauseOf(facet.behavior_pattern) : null;
  const thoughts = facet?.emotional_state ? `Feeling ${clip(facet.emotional_state, 100)}` : null;
  const to = i.speaker ? `, ${firstName(i.speaker.name)}` : "";
  const importance = rateImportance(i.message);
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
      importance: Math.max(importance, 5),
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
  const opening = i.history.length === 0 && i.speaker ? `Hello${to}. ` : "";
  const asked = subjectStems(i);
  const memory = bestMemory(i, asked);
  if (isQuestion(i.message)) {
    if (memory !== null) {
      return {
        reply: `${opening}${recount(memory, i)}.`,
        thoughts,
        actions,
        bounded: false,
        importance: Math.max(2, importance),
      };
    }
    if (asked.size > 0 && !knowsOf(i, asked)) {
      return {
        reply:
          `${opening}I'm not sure${to}. I've never heard of that around here, so I couldn't say.`,
        thoughts: "That is nothing I know about",
        actions: null,
        bounded: true,
        importance: 2,
      };
    }
  }
  const related = memory === null ? "" : ` That reminds me: ${recount(memory, i)}.`;
  const heard = i.speaker ? `Thanks for telling me${to}. I'll remember that.` : "I see.";
  return {
    reply: `${opening}${isQuestion(i.message) ? "Let me think." : heard}${related}`,
    thoughts,
    actions,
    bounded: false,
    importance,
  };
}

function firstClauseOf(text: string): string | null {
  const clause = text.split(/[.;,]/)[0]?.trim() ?? "";
  return clause.length > 0 ? clip(clause, 120).toLowerCase() : null;
}
