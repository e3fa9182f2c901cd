/** @module Word-level matching of cue phrases and lorebook keys against dialogue text. */

const FILLER = new Set(
  "a an the of to in on at for and or but is are was were be been my your his her their our its with by from this that these those it i you we they he she me us them do does did"
    .split(
      " ",
    ),
);

/** Lower-cased, accent-free words with a light plural/tense ending removed. */
export function cueWords(text: string): string[] {
  const folded = text.toLowerCase().normalize("NFKD").replace(/\p{M}+/gu, "");
  const out: string[] = [];
  for (const match of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
    const word = trimEnding(match[0]);
    if (word.length > 0) out.push(word);
  }
  return out;
}

function trimEnding(word: string): string {
  if (word.length <= 4) {
    return word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word;
  }
  for (const suffix of ["ings", "ing", "ies", "ed", "es", "s"]) {
    if (word.endsWith(suffix) && !(suffix === "s" && /(?:ss|us|is)$/.test(word))) {
      return suffix === "ies" ? `${word.slice(0, -3)}y` : word.slice(0, -suffix.length);
    }
  }
  return word;
}

/** Whether `phrase`'s words appear in `words` contiguously, in order. */
function containsSequence(words: readonly string[], phrase: readonly string[]): boolean {
  if (phrase.length === 0 || phrase.length > words.length) return false;
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (words[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * How strongly one cue phrase matches a text: 1 when all its words appear in order; otherwise
 * half the share of its content words present (counted only when at least half are), so
 * "Valentine's party" half-matches "the party on Valentine's Day".
 */
export function phraseMatch(
  words: readonly string[],
  wordSet: ReadonlySet<string>,
  phrase: string,
): number {
  const target = cueWords(phrase);
  if (containsSequence(words, target)) return 1;
  const content = target.filter((w) => !FILLER.has(w));
  if (content.length < 2) return 0;
  const present = content.filter((w) => wordSet.has(w)).length / content.length;
  return present >= 0.5 ? present / 2 : 0;
}

/** The cue score of phrases against a text in [0, 1], and the phrases that matched fully. */
export function cueScore(
  text: string,
  phrases: readonly string[],
): { score: number; matched: string[] } {
  const words = cueWords(text);
  const wordSet = new Set(words);
  const matched: string[] = [];
  let best = 0;
  for (const phrase of phrases) {
    const m = phraseMatch(words, wordSet, phrase);
    if (m === 1) matched.push(phrase);
    best = Math.max(best, m);
  }
  // Several full hits make a facet a little more clearly the one the dialogue is about.
  return { score: Math.min(1, best + 0.25 * Math.max(0, matched.length - 1)), matched };
}
