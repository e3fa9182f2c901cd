/**
 * @module Names of agents and speakers: visible text only, and compared the way a reader sees
 * them, so "Bоb Brand" (a Cyrillic о) or "Sys\u00ADtem" (a soft hyphen) cannot pass for "Bob
 * Brand" or "system".
 */
import { z } from "zod";

/**
 * Characters that render as nothing: format characters (zero-width space and joiners, soft
 * hyphen, bidi marks and isolates, word joiner, byte order mark, tag characters) and the other
 * default-ignorable code points (variation selectors, Hangul fillers, the combining grapheme
 * joiner).
 */
const INVISIBLE = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const INVISIBLE_ALL = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
/**
 * The invisible characters an emoji is made of, which a name may keep: a zero-width joiner
 * between two pictographs ("👩‍🍳"), an emoji or text presentation selector after one ("❤️") or
 * after a keycap's digit.
 */
const EMOJI_GLUE =
  /(?<=[\p{Extended_Pictographic}\p{Emoji_Modifier}]\uFE0F?)\u200D(?=\p{Extended_Pictographic})|(?<=[\p{Extended_Pictographic}#*0-9])[\uFE0E\uFE0F]/gu;

/** The first invisible character of `text` (outside emoji), as `U+200B`, or null. */
export function invisibleCharacterIn(text: string): string | null {
  const found = INVISIBLE.exec(text.replace(EMOJI_GLUE, ""));
  return found ? `U+${found[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}` : null;
}

/** `text` without its invisible characters; those of emoji stay. */
export function stripInvisible(text: string): string {
  const glue = new Set([...text.matchAll(EMOJI_GLUE)].map((m) => m.index));
  return text.replace(INVISIBLE_ALL, (ch, offset: number) => glue.has(offset) ? ch : "");
}

/**
 * A name: trimmed, 1 to `max` characters, none of them invisible (a 400 naming the code point
 * at the edge, before anything stores or compares it).
 */
export function visibleName(max = 100) {
  return z.string().trim().min(1).max(max).superRefine((name, ctx) => {
    const found = invisibleCharacterIn(name);
    if (found) {
      ctx.addIssue({
        code: "custom",
        message:
          `contains an invisible character (${found}): names must be visible text, without zero-width, soft hyphen, bidi or other format characters`,
      });
    }
  });
}

/**
 * Unicode TR39's confusable skeleton (§4): the string decomposed (NFD), each character replaced
 * by its prototype from the confusables data, decomposed again. Passed in by the caller, which
 * owns that data.
 */
export type Skeleton = (text: string) => string;

/**
 * A name folded for comparison: NFKC (full-width and compatibility forms), invisible characters
 * removed, the confusable skeleton before and after lower-casing (so "Вob" and "BOB" both meet
 * "bob"), `i` and `l` made one letter (the skeleton maps a capital I to l, while lower-casing
 * maps it to i), punctuation and runs of spaces made one space. Two names that fold alike look
 * alike; the folded form is for comparing only, never for display.
 */
export function foldName(text: string, skeleton: Skeleton): string {
  const visible = text.normalize("NFKC").replace(INVISIBLE_ALL, "");
  return skeleton(skeleton(visible).toLowerCase())
    .toLowerCase()
    .replace(/i/g, "l")
    .replace(/[\s\p{P}]+/gu, " ")
    .trim();
}
