/** @module Word-level text helpers of the offline adapters: tokenising, stop words, a light stemmer, FNV-1a. */

/** Function words that carry no topic; removed before hashing or rating. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are as at be because been before being
  below between both but by can could did do does doing down during each few for from further had
  has have having he her here hers herself him himself his how i if in into is it its itself just
  me more most my myself no nor not now of off on once only or other our ours ourselves out over
  own same she should so some such than that the their theirs them themselves then there these
  they this those through to too under until up very was we were what when where which while who
  whom why will with would you your yours yourself yourselves s t don isn aren wasn weren doesn
  didn wouldn shouldn couldn ll re ve d m o y also into onto upon via per`
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

const WORD = /[\p{L}\p{N}]+(?:'[\p{L}]+)?/gu;
const MARKS = /\p{M}+/gu;

/**
 * Lower-cases, strips accents and splits a text into words; possessive "'s" is dropped and a
 * negation ("won't", "can't", "didn't") becomes "not", so "won" keeps meaning "won".
 */
export function words(text: string): string[] {
  const folded = text.toLowerCase().normalize("NFKD").replace(MARKS, "");
  const out: string[] = [];
  for (const match of folded.matchAll(WORD)) {
    const word = match[0];
    const apostrophe = word.indexOf("'");
    if (apostrophe === -1) out.push(word);
    else if (word.endsWith("n't")) out.push("not");
    else out.push(word.slice(0, apostrophe));
  }
  return out;
}

// Irregular past forms → the base form, so "lost" meets "lose" and "told" meets "tell". Only
// forms that are not also common words of their own ("left", "saw", "found", "lay" are out).
const IRREGULAR: ReadonlyMap<string, string> = new Map(
  `ate:eat began:begin begun:begin bought:buy brought:bring broke:break broken:break built:build
  caught:catch chose:choose chosen:choose came:come drank:drink drunk:drink drove:drive
  driven:drive eaten:eat fell:fall fallen:fall felt:feel fought:fight forgot:forget
  forgotten:forget forgave:forgive gave:give given:give gone:go went:go grew:grow grown:grow
  heard:hear held:hold hid:hide hidden:hide kept:keep knew:know known:know led:lead lost:lose
  made:make meant:mean met:meet paid:pay ran:run rode:ride ridden:ride rang:ring rung:ring
  said:say sang:sing sung:sing sat:sit seen:see sent:send sold:sell slept:sleep spoke:speak
  spoken:speak spent:spend stole:steal stolen:steal stood:stand swam:swim swum:swim took:take
  taken:take taught:teach thought:think threw:throw thrown:throw told:tell understood:understand
  woke:wake woken:wake won:win wore:wear worn:wear wrote:write written:write`
    .split(/\s+/)
    .filter((pair) => pair.length > 0)
    .map((pair) => pair.split(":") as [string, string]),
);

// Longest suffixes first; each pair is [suffix, replacement].
const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ["ational", "ate"],
  ["ization", "ize"],
  ["fulness", ""],
  ["iveness", "ive"],
  ["ousness", "ous"],
  ["ically", "ic"],
  ["ingly", ""],
  ["ments", ""],
  ["ment", ""],
  ["ness", ""],
  ["ings", ""],
  ["ing", ""],
  ["ied", "y"],
  ["ies", "y"],
  ["edly", ""],
  ["ed", ""],
  ["ly", ""],
  ["es", ""],
  ["s", ""],
];

/**
 * A light English stemmer: strips one common suffix, undoubles a final consonant and drops a
 * final "e", so that "bake", "baking" and "baked" share the stem "bak", and "parties" and
 * "party" share "party". Words of 3 letters or fewer are kept as they are.
 */
export function stem(word: string): string {
  let out = STEMS.get(word);
  if (out === undefined) {
    out = stemUncached(word);
    // Vocabularies are small; the bound only guards against unbounded input.
    if (STEMS.size >= 100_000) STEMS.clear();
    STEMS.set(word, out);
  }
  return out;
}

const STEMS = new Map<string, string>();

function stemUncached(word: string): string {
  const base = IRREGULAR.get(word);
  if (base !== undefined) return base === word ? word : stemUncached(base);
  if (word.length <= 3 || !/^\p{L}+$/u.test(word)) return word;
  let out = word;
  for (const [suffix, replacement] of SUFFIXES) {
    if (!out.endsWith(suffix)) continue;
    const base = out.slice(0, -suffix.length);
    if (base.length + replacement.length < 3) continue;
    // "class", "bus", "speed", "family": the ending is part of the word.
    if (suffix === "s" && /(?:ss|us|is)$/.test(out)) break;
    if (suffix === "ed" && base.endsWith("e")) break;
    if (suffix === "ly" && base.endsWith("i")) break;
    // "houses", "names": only the "s" is a suffix.
    out = suffix === "es" && !/(?:ss|x|z|ch|sh|o)$/.test(base)
      ? out.slice(0, -1)
      : base + replacement;
    break;
  }
  if (/([b-df-hj-np-rtv-z])\1$/.test(out) && !/(?:ll|ss|zz)$/.test(out)) out = out.slice(0, -1);
  if (out.length > 3 && out.endsWith("e")) out = out.slice(0, -1);
  return out;
}

/** The stems of a text's content words, in order (stop words and one-letter words removed). */
export function contentStems(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (word.length > 1 && !STOP_WORDS.has(word)) out.push(stem(word));
  }
  return out;
}

/** 32-bit FNV-1a hash of a string's UTF-16 code units. */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
