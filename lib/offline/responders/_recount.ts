/**
 * @module Private to the offline "respond" responder: what a message asks about, the recalled
 * memory that answers it, and that memory said back as one whole sentence (reported speech quoted
 * once, the character itself as "I").
 */
import type { RespondMemory, RespondPromptInput } from "../../../src/domain/mod.ts";
import { contentStems } from "../text.ts";
import { bare, clip, inFirstPerson, newsOf, toSecondPerson } from "./_speech.ts";
import { about, selfSaid } from "./_identity.ts";

/** Words of a question that say nothing about its subject. */
const QUESTION_WORDS = new Set(
  contentStems(
    "what who whom whose where when why how which tell know think remember say said happen happened thing things anything something everyone anyone someone lately today please",
  ),
);

export function isQuestion(text: string): boolean {
  return /\?\s*$/.test(text) ||
    /^(?:what|who|where|when|why|how|which|do|does|did|is|are|can|could|will|would)\b/i.test(
      text.trim(),
    );
}

/** The content stems a message asks about, names of the two people left out. */
export function subjectStems(i: RespondPromptInput): Set<string> {
  const names = new Set(contentStems(`${i.agentName} ${i.speaker?.name ?? ""}`));
  return new Set(
    contentStems(i.message).filter((s) => !QUESTION_WORDS.has(s) && !names.has(s)),
  );
}

/** The memory sharing most subject stems with the message (ties: the better-ranked one). */
export function bestMemory(
  i: RespondPromptInput,
  asked: ReadonlySet<string>,
): RespondMemory | null {
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
export function knowsOf(i: RespondPromptInput, asked: ReadonlySet<string>): boolean {
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

/** Words quoted once: no quote marks inside, and no final punctuation. */
function unquoted(words: string): string {
  return bare(words.replace(/[\u201c\u201d"]/g, ""));
}

/** Words to end a sentence with: a question or exclamation keeps its mark, anything else gets a full stop. */
function ended(text: string): string {
  return /[?!]$/.test(text) ? text : `${text}.`;
}

/**
 * A remembered item said back as a whole sentence: someone's words quoted in reported speech
 * (news they passed on said as whose it is, never a quote inside a quote), a fact about the
 * character in its own words, else the memory.
 */
export function recount(memory: RespondMemory, i: RespondPromptInput): string {
  const told = /^(.+?) (?:told me that|said to (.+?):) "(.*)"$/s.exec(memory.text);
  if (told) {
    const [, teller, listener, words] = told;
    if (teller === i.agentName && listener !== undefined) {
      return `I told ${listener}: \u201c${ended(clip(unquoted(words), 200))}\u201d`;
    }
    const news = newsOf(memory.text, i.agentName);
    if (news !== null && news.origin !== teller && news.origin !== i.agentName) {
      return `${teller} told me that ${news.origin} said: \u201c${
        ended(unquoted(news.words))
      }\u201d`;
    }
    const said = clip(unquoted(words), 200);
    if (i.speaker && teller === i.speaker.name) {
      return ended(`You told me ${toSecondPerson(said.charAt(0).toLowerCase() + said.slice(1))}`);
    }
    return `${teller} told me: \u201c${ended(said)}\u201d`;
  }
  const own = about(memory.text, i.agentName);
  if (own !== null) return `${selfSaid(clauseAbout(own, subjectStems(i)), [memory.text])}.`;
  const said = inFirstPerson(memory.text, i.agentName);
  if (said !== null) return ended(said);
  return ended(`I know that ${asKnown(clip(memory.text, 200), i.agentName)}`);
}

/** The clause of a predicate that says most of what was asked ("…, and has been talking with Rosa"). */
function clauseAbout(predicate: string, asked: ReadonlySet<string>): string {
  const clauses = predicate.split(/,\s+(?:and|but)\s+|;\s*/).map((c) => c.trim());
  const score = (c: string) => contentStems(c).filter((s) => asked.has(s)).length;
  return clauses.reduce((best, c) => (score(c) > score(best) ? c : best), clauses[0]);
}

/** What the character knows about others, itself in it said as "I" or "me". */
function asKnown(text: string, name: string): string {
  const own = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text
    .replace(new RegExp(`\\b${own} (\\p{Ll}+?)s\\b`, "u"), "I $1")
    .replace(new RegExp(`\\b${own}\\b`, "gu"), "me");
}
