/**
 * @module What an imported character card may hold: JSON no deeper than the edge allows, clean
 * text, and sizes within limits. Past a limit the import answers 422 naming it, rather than
 * cutting the card silently.
 */
import { SimulacraError } from "../errors.ts";
import { jsonDepthExceeds, MAX_JSON_DEPTH, stripUnsafeJson } from "../text/mod.ts";

/**
 * Card JSON, refused past the depth limit (extensions from other tools included) and with
 * control characters and lone surrogates stripped from every string.
 * @throws `invalid_request` (problem `too_deep`); JSON.parse's SyntaxError on broken JSON.
 */
export function parseCardJson(text: string): unknown {
  if (jsonDepthExceeds(text)) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot import the character card: the card nests deeper than ${MAX_JSON_DEPTH} levels`,
      { details: { problem: "too_deep" } },
    );
  }
  return stripUnsafeJson(JSON.parse(text));
}

/** The limits, in characters except `loreEntries`. */
export const CARD_LIMITS = {
  /** The name. */
  name: 100,
  /** The description (after macros): the agent's description. */
  description: 8000,
  /** Enabled, non-empty lorebook entries. */
  loreEntries: 100,
  /** One lorebook entry with its keys. */
  loreEntry: 2000,
  /** The example dialogue. */
  examples: 6000,
} as const;

/** A card's texts as imported (macros expanded). */
export interface CardTexts {
  name: string;
  description: string;
  lore: { keys: string[]; content: string }[];
  examples: string;
}

function tooLarge(limit: keyof typeof CARD_LIMITS, message: string): SimulacraError {
  return new SimulacraError("unprocessable", `Cannot import the character card: ${message}`, {
    details: { limit, max: CARD_LIMITS[limit] },
  });
}

/** Throws 422 `unprocessable` naming the first limit the card goes over. */
export function assertCardFits(card: CardTexts): void {
  if (card.name.length > CARD_LIMITS.name) {
    throw tooLarge("name", `the name is over ${CARD_LIMITS.name} characters`);
  }
  if (card.description.length > CARD_LIMITS.description) {
    throw tooLarge("description", `the description is over ${CARD_LIMITS.description} characters`);
  }
  if (card.lore.length > CARD_LIMITS.loreEntries) {
    throw tooLarge(
      "loreEntries",
      `the lorebook has ${card.lore.length} entries; at most ${CARD_LIMITS.loreEntries} are imported`,
    );
  }
  if (
    card.lore.some((e) => e.keys.join(", ").length + 2 + e.content.length > CARD_LIMITS.loreEntry)
  ) {
    throw tooLarge(
      "loreEntry",
      `a lorebook entry with its keys is over ${CARD_LIMITS.loreEntry} characters`,
    );
  }
  if (card.examples.length > CARD_LIMITS.examples) {
    throw tooLarge("examples", `the example dialogue is over ${CARD_LIMITS.examples} characters`);
  }
}
