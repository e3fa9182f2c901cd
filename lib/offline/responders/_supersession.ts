/**
 * @module Private to the offline responders: which earlier memory an event updates, as the
 * importance prompt asks when it shows earlier memories (supersession). A rule-based stand-in:
 * the same subject, and either the same verb with something else after it ("Sam works at the
 * pharmacy" → "Sam now works at the library") or a change word with a fact of the kind it
 * changes ("The bakery is on Elm Street" → "The bakery has moved to Oak Avenue").
 */
import { stem, STOP_WORDS, words } from "../text.ts";

/** Words that join a subject to what is said of it: the subject ends before the first. */
const LINKS = new Set(
  "is are was were has have had will would can could may now no not never just finally still recently again already"
    .split(" "),
);
/** Words skipped between the subject and its verb ("Sam now works", "no longer plays"). */
const ADVERBS = new Set(
  "now no not never just finally still recently again longer already".split(" "),
);
const DETERMINERS = new Set("the a an my our his her their its this that".split(" "));

/** Words saying a fact changed, and phrases that do ("broke up", "called off"). */
const CHANGES = new Set(
  `moved move relocated sold bought closed reopened opened repaired fixed recovered healed finished
  completed quit resigned retired left divorced separated risen rose fallen fell dropped raised
  increased lowered cancelled canceled replaced became elected`.split(/\s+/),
);
const CHANGE_PHRASES = [
  "broke up",
  "called off",
  "stepped down",
  "no longer",
  "gave up",
  "split up",
];
const PHRASE_STARTS = new Set(CHANGE_PHRASES.map((p) => p.split(" ")[0]));
/** Verbs that only link a subject to a state: the same one says less than "works" or "sells". */
const COPULAS = new Set(["is", "are", "was", "were", "has", "have", "had"].map(stem));
const NEGATIONS = new Set(["no", "not", "never", "anymore"]);
const MARKERS = new Set("now again anymore instead new longer".split(" "));

/** Kinds of fact: a change of one kind updates a fact of the same kind. */
const FAMILIES: readonly ReadonlySet<string>[] = [
  "located lives live living moved move relocated address street avenue lane road square",
  "works work job employed teaches runs owns sold bought business shop",
  "dating married engaged engagement together broke divorced separated partner boyfriend girlfriend",
  "open closed reopened broken repaired fixed dry full empty flooded sick ill fever recovered healed well free booked vacant",
  "price cost costs coin coins cheap expensive risen rose fallen fell raised lowered",
  "captain mayor leader head chair master manager stepped resigned elected",
].map((line) => new Set(line.split(" ")));

/** A text's parts: the subject, the verb after it, and the rest, as words. */
export interface Clause {
  subject: string;
  verb: string;
  /** The verb as written (before stemming). */
  said: string;
  rest: string[];
  all: string[];
}

/** A text read as a clause ({@linkcode updatedMemory} takes earlier memories read once). */
export function clause(text: string): Clause {
  const all = words(statements(text)[0]);
  let start = 0;
  while (start < all.length - 1 && DETERMINERS.has(all[start])) start++;
  let end = start + 1;
  while (end < all.length && !isLink(all, end)) end++;
  let verb = end;
  while (verb < all.length && ADVERBS.has(all[verb])) verb++;
  const subject = all.slice(start, end).filter((w) => !STOP_WORDS.has(w)).map(stem).join(" ");
  const said = all[verb] ?? "";
  return { subject, verb: stem(said), said, rest: all.slice(verb + 1), all };
}

/**
 * What a text states: what someone told is about what they told ("Sam told me that the bakery
 * moved"), and a line of a conversation states each of its sentences ('Sam said to Ana: "Have
 * you heard? The bakery moved."', the sentence that reads as a fact first).
 */
function statements(text: string): string[] {
  const told = /\btold (?:me|us) that (.+)$/is.exec(text);
  if (told) return [told[1]];
  const line = /^[^:"]{1,200} said to [^:"]{1,200}: "(.+)"$/s.exec(text);
  if (!line) return [text];
  const sentences = line[1].split(/(?<=[.!?])\s+/).filter((x) => /\w/.test(x));
  const facts = sentences.filter((x) => !/\?$/.test(x));
  return facts.length > 0 ? facts : [line[1]];
}

/** Whether word `i` starts what is said of the subject: a link word, or a verb-like word. */
function isLink(all: readonly string[], i: number): boolean {
  const word = all[i];
  if (LINKS.has(word)) return true;
  const next = all[i + 1];
  // "Sam works", "Jennifer called off", but not "the price of apples is".
  return /(?:s|ed)$/.test(word) && (next === undefined || !LINKS.has(next)) ||
    CHANGES.has(word) || PHRASE_STARTS.has(word);
}

function has(text: string, set: ReadonlySet<string>, all: readonly string[]): boolean {
  return all.some((w) => set.has(w)) ||
    (set === CHANGES && CHANGE_PHRASES.some((p) => text.includes(p)));
}

/** How strongly `event` reads as an update of `earlier` (3 or more: it is one). */
function updateScore(event: string, e: Clause, m: Clause): number {
  if (e.subject === "" || e.subject !== m.subject) return 0;
  const lower = event.toLowerCase();
  // Something the subject did ("Ana noticed a kettle") is an event, not a fact that can change,
  // unless what it did is a change ("Sam moved", "the shop closed").
  if (/ed$/.test(e.said) && !has(lower, CHANGES, e.all)) return 0;
  const rest = (c: Clause) => c.rest.filter((w) => !STOP_WORDS.has(w)).map(stem);
  const negated = (c: Clause) => c.all.some((w) => NEGATIONS.has(w));
  if (e.verb === m.verb && rest(e).join(" ") === rest(m).join(" ")) {
    // The same fact denied: "Eddy plays the violin" → "Eddy no longer plays the violin".
    return negated(e) !== negated(m) ? 5 : 0;
  }
  let score = e.verb === m.verb ? (COPULAS.has(e.verb) ? 1 : 3) : 0;
  if (has(lower, CHANGES, e.all)) score += 2;
  if (e.all.some((w) => MARKERS.has(w))) score += 1;
  if (
    FAMILIES.some((family) => e.all.some((w) => family.has(w)) && m.all.some((w) => family.has(w)))
  ) {
    score += 2;
  }
  const shared = rest(e).filter((w) => rest(m).includes(w));
  if (shared.length > 0 && e.verb !== m.verb) score += 1;
  return score;
}

/**
 * The number (from 1) of the earlier memory `event` updates, the strongest reading of one; 0
 * when it updates none.
 */
export function updatedMemory(
  event: string,
  earlier: readonly string[] | readonly Clause[],
): number {
  const clauses = earlier.map((m) => typeof m === "string" ? clause(m) : m);
  let best = 0;
  let bestScore = 2;
  for (const statement of statements(event)) {
    const e = clause(statement);
    clauses.forEach((m, i) => {
      const score = updateScore(statement, e, m);
      if (score > bestScore) {
        best = i + 1;
        bestScore = score;
      }
    });
  }
  return best;
}
