/** @module Helpers of the offline talking responders: news as heard, first person, quoting, steady choices. */
import { contentStems, fnv1a } from "../text.ts";

/** Memories worth passing on: plans, events, elections, invitations, dates. */
const NEWSWORTHY =
  /\b(?:plan(?:s|ning|ned)?|host\w*|part(?:y|ies)|running for|run for|campaign\w*|election\w*|elected|mayor\w*|festival|wedding|concert|opening|celebrat\w*|invit\w*|announc\w*|tonight|tomorrow|weekend|(?:jan|feb|mar|apr|jun|jul|aug|sep|oct|nov|dec)\w* \d{1,2})\b/i;

/** The ways a speaker introduces its own news, and news it heard; {@linkcode newsOf} reads them back. */
const OWN_INTROS = ["Guess what?", "Have you heard?", "Some news:"] as const;
const HEARD_INTROS = ["Did you hear what", "Have you heard what"] as const;
/** Whether a line passes news on, so the listener can thank the speaker for it. */
export const TELLS_NEWS = new RegExp(
  `(?:${[...OWN_INTROS, ...HEARD_INTROS].map((t) => t.replace("?", "\\?")).join("|")})`,
);

/** A piece of news: who it comes from, and their words (first person when it is theirs). */
export interface News {
  origin: string;
  words: string;
}

/** The first word of a name ("Sofia" of "Sofia Marchetti"). */
export function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] || name;
}

/** One of `options`, the same for the same key: choices depend on what is said, never on luck. */
export function pick<T>(options: readonly T[], key: string): T {
  return options[fnv1a(key) % options.length];
}

/** Like {@linkcode pick}, but never an option already said in `said` while another is left. */
export function pickFresh(
  options: readonly string[],
  key: string,
  said: readonly string[],
): string {
  const fresh = options.filter((o) => !said.some((line) => line.includes(o)));
  return pick(fresh.length > 0 ? fresh : options, key);
}

/** Text without surrounding space and final punctuation. */
export function bare(text: string): string {
  return text.trim().replace(/\s+/g, " ").replace(/[\s.;:,!?]+$/, "");
}

/** At most `max` characters, cut at a word with "…". */
export function clip(text: string, max: number): string {
  const t = bare(text);
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/** The first clause of a sentence: up to ", and", ";", "and" before a new verb, or a full stop. */
export function firstClause(text: string): string {
  return bare(
    text.split(/,\s+(?:and|but|so|because|which)\s+|;\s*|\.\s+|\s+and\s+(?=[a-z]+s\b)/)[0] ??
      text,
  );
}

/** A verb in the first person singular: "hosts" → "host", "watches" → "watch", "tries" → "try". */
export function baseVerb(verb: string): string {
  if (/ies$/.test(verb)) return `${verb.slice(0, -3)}y`;
  if (/(?:ch|sh|ss|x|o)es$/.test(verb)) return verb.slice(0, -2);
  if (/[^s]s$/.test(verb)) return verb.slice(0, -1);
  return verb;
}

/**
 * A third-person sentence about `name` in that person's own words ("Lucia Ferreira is hosting
 * a party" → "I'm hosting a party"); null when it does not start with the name.
 */
export function inFirstPerson(text: string, name: string): string | null {
  const clause = firstClause(text);
  if (!clause.toLowerCase().startsWith(`${name.toLowerCase()} `)) return null;
  const rest = clause.slice(name.length + 1);
  const [verb, ...tail] = rest.split(" ");
  const after = tail.join(" ");
  const lower = verb.toLowerCase();
  const said = lower === "is"
    ? `I'm ${after}`
    : lower === "has"
    ? `I have ${after}`
    : lower === "was"
    ? `I was ${after}`
    : /^[a-z]+s$/.test(lower)
    ? `I ${baseVerb(lower)} ${after}`
    : null;
  return said === null
    ? null
    : said.replace(/\bhis own\b|\bher own\b/g, "my own").replace(/\s+/g, " ").trim();
}

/**
 * First and second person swapped, for repeating someone's words back to them ("I lost my
 * scarf" → "you lost your scarf").
 */
export function toSecondPerson(text: string): string {
  const swap: Record<string, string> = {
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "i'm": "you're",
    "i've": "you've",
    "i'll": "you'll",
    "i'd": "you'd",
    "am": "are",
    "we": "you",
    "our": "your",
    "us": "you",
  };
  return text.replace(/\b[A-Za-z]+(?:'[a-z]+)?\b/g, (word) => swap[word.toLowerCase()] ?? word);
}

/**
 * The news a memory carries, if it is news: a line someone said (`X said to Y: "…"` or
 * `X told me that "…"`), unwrapped from a retelling, or a seed about the speaker in its own
 * words. Null for anything not newsworthy.
 */
export function newsOf(memory: string, speakerName: string): News | null {
  const heard = /^(.+?) (?:said to .+?:|told me that) "(.*)"$/s.exec(memory.trim());
  let news: News | null;
  if (heard) {
    const [, teller, line] = heard;
    const relay = /what (.+?) said\? “(.+?)”/.exec(line);
    if (relay) news = { origin: relay[1], words: relay[2] };
    else {
      const intro = TELLS_NEWS.exec(line);
      news = {
        origin: teller,
        words: intro ? line.slice(intro.index + intro[0].length).trim() : line,
      };
    }
  } else {
    const own = inFirstPerson(memory, speakerName);
    news = own === null ? null : { origin: speakerName, words: own };
  }
  // "works on his campaign" cannot be retold without knowing whose: only news that stands alone.
  if (news === null || !NEWSWORTHY.test(news.words) || THIRD_PERSON.test(news.words)) return null;
  return { origin: news.origin, words: clip(news.words, 200) };
}

const THIRD_PERSON = /\b(?:he|him|his|she|her|hers)\b/i;

/** How `speaker` passes news on, the intro picked by `key`. */
export function tellNews(news: News, speakerName: string, key: string): string {
  return news.origin === speakerName
    ? `${pick(OWN_INTROS, key)} ${news.words}.`
    : `${pick(HEARD_INTROS, key)} ${news.origin} said? “${news.words}.”`;
}

/** Whether most content words of `text` were already said in `said`. */
export function alreadySaid(text: string, said: readonly string[]): boolean {
  const stems = new Set(contentStems(text));
  if (stems.size === 0) return false;
  return said.some((line) => {
    const known = new Set(contentStems(line));
    let shared = 0;
    for (const s of stems) if (known.has(s)) shared++;
    return shared / stems.size >= 0.6;
  });
}

/** Whether a text says some 4-word phrase twice (the mark of a mechanical sentence). */
export function repeatsPhrase(text: string): boolean {
  const words = text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];
  const seen = new Set<string>();
  for (let i = 0; i + 4 <= words.length; i++) {
    const phrase = words.slice(i, i + 4).join(" ");
    if (seen.has(phrase)) return true;
    seen.add(phrase);
  }
  return false;
}
