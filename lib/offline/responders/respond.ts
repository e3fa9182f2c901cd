/** @module Offline responder for the "respond" prompt: an in-character turn built from the selected facet and recalled memories. */
import type { RespondPromptInput, RespondPromptOutput } from "../../../src/domain/mod.ts";
import { contentStems } from "../text.ts";
import { rateImportance } from "../importance_lexicon.ts";
import { bare, clip, firstName, newsOf } from "./_speech.ts";
import { about, selfSaid } from "./_identity.ts";
import { bestMemory, isQuestion, knowsOf, recount, subjectStems } from "./_recount.ts";
import { answerAboutSelf } from "./_self_answers.ts";
import { pickGameActions } from "./_game_actions.ts";
import { updatedMemory } from "./_supersession.ts";

const AI_QUESTION =
  /\b(?:are|r)\s+(?:you|u)\s+(?:an?\s+)?(?:ai|a\.i\.|bot|robot|chatbot|language model|real person|human|real)\b/i;
const CLAIM =
  /\b(?:you promised|you swore|you owe me|you said you would|you told me you|we agreed|remember when you)\b/i;
const PLAN_WORDS = /\b(?:should|must|need to|have to|go|plan|today|tonight|tomorrow|instead)\b/i;
/** A message asking for something: "A room for the night, please.", "Can I have a coffee?". */
const REQUEST =
  /^(?:(?:hi|hello|hey)[,!.]?\s+)?(?:(?:could|can|may) (?:i|we)|(?:could|can|would|will) you)\b|\bplease\b|\bi(?:'d| would) like\b|\bi (?:want|need)\b|^(?:give|get|bring|pour) me\b|^let me have\b/i;
/** The opening of a request, before the thing asked for. */
const REQUEST_OPENING =
  /^(?:(?:hi|hello|hey)[,!.]?\s+)?(?:(?:could|can|may) (?:i|we) (?:have|get|book|take)|(?:could|can|would) you (?:give|get|find) me|i'd like|i would like|i want|i need|give me|let me have|please)\s+/i;
/** A greeting and nothing more: "Hello there!", "Good morning, Mira." */
const GREETING =
  /^(?:hello|hi|hey|good (?:morning|afternoon|evening|day)|greetings|howdy)\b[^.?!]{0,30}[.!]?$/i;
/** A question about what is going on: the character passes on what it has heard. */
const NEWS = /\b(?:news|what's new|what is new|heard anything|gossip|going on)\b/i;
/** A behaviour that reads as a gesture in parentheses: "(smiles)", "(wipes the counter)". */
const GESTURE =
  /^(?:smiles?|grins?|beams?|nods?|laughs?|chuckles?|sighs?|shrugs?|leans?|winks?|frowns?|waves?|gestures?|glances?|looks? up|wipes?|pours?|stirs?|sips?|taps?|raises?|tilts?|crosses?|folds?|hums?|shakes?|rubs?|scratches?|points?|pauses?|straightens?|hands? (?:out|over)|offers?|holds? out|reaches?|sets? down|puts? down|picks? up)\b/i;

/**
 * What to call the speaker: a first name ("Ada" of "Ada Lovelace"), or nothing when the name is a
 * description ("the traveller", "A stranger") or the speaker is an interviewer. Never a word cut
 * out of a description ("Hello, the.").
 */
function addressOf(i: RespondPromptInput): string | null {
  if (i.speaker === null || i.mode === "interview") return null;
  const name = i.speaker.name.trim();
  const words = name.split(/\s+/);
  const proper = words.every((w) => /^\p{Lu}/u.test(w)) &&
    !/^(?:a|an|the|some|my|your|our|this|that|stranger|someone|somebody|player|user|guest|visitor|customer|traveller|traveler|interviewer)$/i
      .test(words[0]);
  return proper ? firstName(name) : null;
}

/** The thing a request asks for: "A room for the night, please." → "a room for the night". */
function requested(message: string): string {
  const thing = bare(message.replace(/,?\s*please\b/gi, "").replace(REQUEST_OPENING, ""));
  return thing.length > 0 ? clip(thing, 120) : "that";
}

/**
 * Answers from the input alone, in this order: a sincere "are you an AI?" with disclosure on
 * gets the truth; a boundary hint gets uncertainty (`bounded: true`); the inner voice is taken
 * to heart (re-plan when it speaks of doing something); a claim about the character's past
 * that none of its own memories backs is not accepted. The interview's basic questions (job,
 * home, who it is, what it does at a time, a normal day) are answered from the profile, the
 * recalled memories and today's plan ("What is your job?" → "I own Marigold Cafe."). A request
 * is answered, from a related memory when there is one. A question is answered from the recalled
 * memory that shares most words with it ("What did I lose?" → "You told me you lost your red
 * scarf at the park"), else from the character's own profile; a question about something
 * neither mentions is out of its world, answered with uncertainty (`bounded: true`). Anything
 * else is acknowledged, with a related memory when there is one. The speaker is called by its
 * first name only when it has a name. In chat, `supersedes` names the listed memory the message
 * updates ({@linkcode updatedMemory}), 0 for none.
 */
export function answerRespond(input: unknown): RespondPromptOutput {
  const i = input as RespondPromptInput;
  const turn = i.mode === "chat"
    ? { ...answerTurn(i), supersedes: updatedMemory(i.message, i.memories.map((m) => m.text)) }
    : answerTurn(i);
  if (!i.gameActions?.length) return turn;
  // The game's actions: the one the message asks for, agreed to in words; else none.
  const game_actions = pickGameActions(i.message, i.gameActions);
  if (game_actions.length === 0 || turn.bounded) return { ...turn, game_actions: [] };
  const to = addressOf(i) === null ? "" : `, ${addressOf(i)}`;
  return { ...turn, reply: `Of course${to}, right away.`, game_actions };
}

function answerTurn(i: RespondPromptInput): RespondPromptOutput {
  const facet = i.facets[0];
  const actions = facet ? gestureOf(facet.behavior_pattern) : null;
  const thoughts = facet?.emotional_state ? `Feeling ${clip(facet.emotional_state, 100)}` : null;
  const name = addressOf(i);
  const to = name === null ? "" : `, ${name}`;
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
  const opening = i.history.length === 0 && i.mode === "chat"
    ? (name === null ? "Hello. " : `Hello, ${name}. `)
    : "";
  const self = answerAboutSelf(i);
  if (self !== null) {
    return {
      reply: `${opening}${self.reply}`,
      thoughts,
      actions,
      bounded: false,
      importance: Math.max(2, importance),
    };
  }
  // Once greeted by name, the rest of the turn need not name the speaker again.
  const again = opening === "" ? to : "";
  if (GREETING.test(i.message.trim())) {
    return {
      reply: `${opening || "Hello. "}What can I do for you${again}?`,
      thoughts,
      actions,
      bounded: false,
      importance: Math.max(1, importance),
    };
  }
  const asked = subjectStems(i);
  const news = NEWS.test(i.message) && isQuestion(i.message)
    ? i.memories.find((m) => newsOf(m.text, i.agentName) !== null) ?? null
    : null;
  const memory = news ?? bestMemory(i, asked);
  if (REQUEST.test(i.message)) {
    const thing = requested(i.message);
    const answer = memory === null ? "Let me see what I can do." : recount(memory, i);
    return {
      reply: `${opening}${thing.charAt(0).toUpperCase()}${thing.slice(1)}? ${answer}`,
      thoughts,
      actions,
      bounded: false,
      importance: Math.max(2, importance),
    };
  }
  if (isQuestion(i.message)) {
    const own = memory === null ? ownLine(i, asked) : null;
    if (memory !== null || own !== null) {
      return {
        reply: `${opening}${memory !== null ? recount(memory, i) : own}`,
        thoughts,
        actions,
        bounded: false,
        importance: Math.max(2, importance),
      };
    }
    if (asked.size > 0 && !knowsOf(i, asked)) {
      return {
        reply:
          `${opening}I'm not sure${again}. I've never heard of that around here, so I couldn't say.`,
        thoughts: "That is nothing I know about",
        actions: null,
        bounded: true,
        importance: 2,
      };
    }
  }
  const related = memory === null ? "" : ` That reminds me: ${recount(memory, i)}`;
  const heard = i.speaker ? `Thanks for telling me${again}. I'll remember that.` : "I see.";
  return {
    reply: `${opening}${isQuestion(i.message) ? "Let me think." : heard}${related}`,
    thoughts,
    actions,
    bounded: false,
    importance,
  };
}

/**
 * The sentence of the character's own profile or plan that shares most words with the
 * question, in its own words ("What are you planning?" → "I'm planning to host a party …"), or
 * null when none shares any.
 */
function ownLine(i: RespondPromptInput, asked: ReadonlySet<string>): string | null {
  let best: string | null = null;
  let bestScore = 0;
  const lines = i.anchor.summary.split("\n").filter((l) => !/^(?:Name|Innate traits):/.test(l))
    .flatMap((l) => l.split(/(?<=[.!?])\s+/));
  for (const line of lines) {
    const predicate = about(line, i.agentName);
    if (predicate === null || /\bnot known yet\b/.test(line)) continue;
    const stems = new Set(contentStems(line));
    let score = 0;
    for (const s of asked) if (stems.has(s)) score++;
    if (score > bestScore) [best, bestScore] = [`${selfSaid(predicate, lines)}.`, score];
  }
  return best;
}

/** A facet's behaviour as a gesture in parentheses, only when it reads as one ("smiles warmly"). */
function gestureOf(text: string): string | null {
  const clause = text.split(/[.;,]/)[0]?.trim() ?? "";
  return GESTURE.test(clause) ? clip(clause, 120).toLowerCase() : null;
}
