/**
 * @module The anonymised counterpart of a persona (MREval's MA metrics): names and identity cues
 * replaced by neutral placeholders, so an answer can only come from what the persona says, not
 * from what a model already knows about a name.
 */

/** Placeholders the anonymised text uses: the character, and the people it knows in order. */
export const ANONYMOUS_CHARACTER = "the character";

/** What to hide: the character's name and nickname, and the names of people it knows. */
export interface IdentityCues {
  name: string;
  nickname?: string;
  /** Other people's names (relationships), each replaced by "Person A", "Person B"… */
  others?: readonly string[];
  /** Further identity cues (a workplace, a home town), each replaced by "a place". */
  places?: readonly string[];
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The words to look for: the full name first, then each part of it of 3+ letters. */
function variants(name: string): string[] {
  const full = name.trim();
  const parts = full.split(/\s+/).filter((p) => p.length >= 3);
  return [full, ...(parts.length > 1 ? parts : [])].filter((v) => v !== "");
}

/** The replacements, longest first so a full name goes before its parts. */
function replacements(cues: IdentityCues): [RegExp, string][] {
  const pairs: [string, string][] = [];
  for (const v of variants(cues.name)) pairs.push([v, ANONYMOUS_CHARACTER]);
  if (cues.nickname?.trim()) pairs.push([cues.nickname.trim(), ANONYMOUS_CHARACTER]);
  (cues.others ?? []).forEach((other, i) => {
    const alias = `Person ${String.fromCharCode(65 + (i % 26))}`;
    for (const v of variants(other)) pairs.push([v, alias]);
  });
  for (const place of cues.places ?? []) if (place.trim()) pairs.push([place.trim(), "a place"]);
  return pairs
    .sort((x, y) => y[0].length - x[0].length)
    .map((
      [from, to],
    ) => [new RegExp(`(?<![\\p{L}\\p{N}])${escape(from)}(?:'s)?(?![\\p{L}\\p{N}])`, "giu"), to]);
}

/**
 * `text` with every name and identity cue replaced: the character's name (whole, or any part of
 * three letters or more) and nickname by "the character", each other person by "Person A",
 * "Person B"… in the order given, places by "a place". Possessives follow ("Isabella's" → "the
 * character's"). Matching ignores case and never cuts a word ("Isabellas" stays).
 *
 * @example
 * ```ts
 * anonymiseText("Isabella Rodriguez asks Maria to the party", { name: "Isabella Rodriguez", others: ["Maria Lopez"] });
 * // "the character asks Person A to the party"
 * ```
 */
export function anonymiseText(text: string, cues: IdentityCues): string {
  let out = text;
  for (const [pattern, to] of replacements(cues)) {
    out = out.replace(pattern, (match) => (match.toLowerCase().endsWith("'s") ? `${to}'s` : to));
  }
  return out;
}

/**
 * A deep copy of `value` with {@linkcode anonymiseText} applied to every string in it (object
 * keys are left alone): personas, prompt inputs and memories alike.
 */
export function anonymiseDeep<T>(value: T, cues: IdentityCues): T {
  const visit = (v: unknown): unknown => {
    if (typeof v === "string") return anonymiseText(v, cues);
    if (Array.isArray(v)) return v.map(visit);
    if (typeof v === "object" && v !== null) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, visit(x)]));
    }
    return v;
  };
  return visit(value) as T;
}
