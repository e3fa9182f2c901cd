/**
 * @module Unicode TR39's confusable skeleton, from `unhomoglyph`'s copy of the Unicode
 * confusables data (confusables.txt, Unicode 13.0).
 *
 * A dependency because the mapping is 6,300 entries of Unicode data that must come from the
 * source, and `unhomoglyph` (nodeca, the maintainers of markdown-it and js-yaml) is that data
 * and a one-line replace, with no dependencies; matrix-js-sdk uses it for the same job (telling
 * display names apart). Its data is from 2020: the characters added since are in new scripts,
 * while Latin, Greek, Cyrillic and the compatibility forms impersonators use are covered.
 */
import unhomoglyph from "unhomoglyph";
import type { Skeleton } from "../src/domain/mod.ts";

/** TR39 §4 skeleton: NFD, each character to its confusable prototype, NFD again. */
export const confusableSkeleton: Skeleton = (text) =>
  unhomoglyph(text.normalize("NFD")).normalize("NFD");
