/** @module Offline responder for the "dialogue_line" prompt: small talk that passes on the speaker's news, closed by the replier. */
import type { DialogueLineInput, DialogueLineOutput } from "../../../src/domain/mod.ts";
import {
  alreadySaid,
  bare,
  clip,
  firstClause,
  firstName,
  type News,
  newsOf,
  pick,
  pickFresh,
  tellNews,
  TELLS_NEWS,
  toSecondPerson,
} from "./_speech.ts";

/** The replier says goodbye on this line unless the turn cap comes first. */
const NATURAL_TURNS = 3;

const GREETINGS = ["Hi {name}!", "Hello, {name}!", "Hey {name}, good to see you."];
const HOW_ARE_YOU = ["How have you been?", "How is your day going?", "What have you been up to?"];
const ANSWERS = [
  "I'm doing well, thanks for asking.",
  "Pretty good, busy as usual.",
  "Not bad at all, thank you.",
];
const HEARD = [
  "I hadn't heard that, thanks for telling me!",
  "Really? That's good to know.",
  "Oh, I didn't know that!",
];
const ACKNOWLEDGE = ["That sounds nice.", "I see what you mean.", "Good to hear."];
const GOODBYES = [
  "It was good to talk, {name}. See you later!",
  "Nice catching up, {name}. Take care!",
  "I should get going, {name}. See you around!",
];

/**
 * The speaker's first news item that is newsworthy and not yet said: not in this conversation
 * and not in what it told the listener before. News from or about the listener never reaches
 * the input.
 */
function freshNews(i: DialogueLineInput): News | null {
  const said = [...i.history.map((h) => h.text), ...(i.toldBefore ?? [])];
  for (const memory of i.news ?? []) {
    const news = newsOf(memory, i.speakerName);
    if (news !== null && !alreadySaid(news.words, said)) return news;
  }
  return null;
}

/** Topics that say what the speaker wants to do ("ask …", "invite …"), not what about. */
const VERB_FIRST =
  /^(?:ask|tell|invite|talk|discuss|share|check|see|thank|apologi[sz]e|borrow|return|remind|plan|offer|help|warn|show|get|give|find|let|make|congratulate|welcome|introduce|deal|sort|settle|complain|explain|mention)\b/i;

/** Topics that only say "let's talk": the greeting covers them. */
const SMALL_TALK = /^(?:chat|talk|catch up|say hello|say hi|greet|how things are going)\b/i;

/** The topic as the speaker says it, the listener addressed as "you"; null for small talk. */
function topicLine(i: DialogueLineInput): string | null {
  if (i.topic === null || SMALL_TALK.test(i.topic.trim())) return null;
  const full = new RegExp(
    `\\b${escape(i.listenerName)}\\b|\\b${escape(firstName(i.listenerName))}\\b`,
    "g",
  );
  const topic = bare(i.topic).replace(full, "you");
  return VERB_FIRST.test(topic) ? `I wanted to ${topic}.` : `I wanted to talk about ${topic}.`;
}

/**
 * A question about the listener from a recalled memory that starts with their name ("Eddy Lin
 * is working on a composition" → "Are you still working on a composition?"); null when none.
 */
function askAbout(i: DialogueLineInput, said: readonly string[]): string | null {
  for (const memory of i.memories) {
    for (const name of [i.listenerName, firstName(i.listenerName)]) {
      if (!memory.startsWith(`${name} `)) continue;
      const clause = firstClause(memory).slice(name.length + 1);
      const [verb, ...rest] = clause.split(" ");
      if (rest.length === 0 || /["“]/.test(clause)) continue;
      const object = toSecondPerson(rest.join(" "));
      const question = verb === "is"
        ? `Are you still ${object}`
        : /^[a-z]+s$/.test(verb) && verb !== "was"
        ? `Do you still ${verb.replace(/(?:(?<=ch|sh|ss|x|o)es|s)$/, "")} ${object}`
        : null;
      if (question !== null && !alreadySaid(question, said)) return `${clip(question, 200)}?`;
    }
  }
  return null;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Answers from the input alone. The opener greets the listener and says why it came (the topic),
 * else passes on its freshest news, else asks about something it remembers of the listener; a
 * reply reacts to the last line (thanks for news, an answer to a
 * question) and passes on news of its own. The initiator never ends; the replier ends on its
 * third line or its last allowed one, whichever comes first (on its second when neither has
 * news), so offline conversations always
 * end by a speaker within the turn cap. Phrasings are picked by speaker, listener, time and
 * turn (and the call's seed key), so the same conversation reads the same at every replay.
 */
export function answerDialogueLine(
  input: unknown,
  _prompt?: unknown,
  seed = "",
): DialogueLineOutput {
  const i = input as DialogueLineInput;
  const name = firstName(i.listenerName);
  const key = `${seed}|${i.speakerName}|${i.listenerName}|${i.now}|${i.turn}`;
  const fill = (text: string) => text.replaceAll("{name}", name);
  const initiator = i.history.length === 0 || i.history[0].speaker === i.speakerName;
  const news = freshNews(i);
  const last = i.history.at(-1)?.text ?? "";
  // Small talk with nothing to pass on ends sooner, as it would.
  const quiet = news === null && !TELLS_NEWS.test(last) && i.turn >= 2;
  const end = !initiator && (i.turn >= Math.min(i.maxTurns, NATURAL_TURNS) || quiet);
  const said = i.history.map((h) => h.text);
  const ask = () => askAbout(i, said) ?? pickFresh(HOW_ARE_YOU, key, said);
  let parts: string[];
  if (i.history.length === 0) {
    const topic = topicLine(i);
    parts = [
      fill(pick(GREETINGS, key)),
      topic ?? (news ? tellNews(news, i.speakerName, key) : ask()),
    ];
  } else {
    const reaction = TELLS_NEWS.test(last)
      ? pickFresh(HEARD, key, said)
      : /\?\s*$/.test(last)
      ? pickFresh(ANSWERS, key, said)
      : pickFresh(ACKNOWLEDGE, key, said);
    if (end) parts = [reaction, fill(pick(GOODBYES, key))];
    else if (news) parts = [reaction, tellNews(news, i.speakerName, key)];
    else parts = [reaction, ask()];
  }
  const line = parts.join(" ");
  return { line: line.length <= 600 ? line : `${line.slice(0, 599)}…`, end };
}
