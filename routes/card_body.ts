/**
 * @module The body of a card import: a JSON card, or a PNG card whose `ccv3` (preferred) or
 * `chara` text chunk holds the card as base64-encoded JSON. Only the card's JSON text reaches
 * the core.
 */
import {
  invalidCard,
  notBase64Json,
  parseCardText,
  type ParsedCard,
  SimulacraError,
} from "../src/domain/mod.ts";
import { readPngText } from "../lib/png_text.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads a card from a request body: `application/json` (a card object) or `image/png` (the
 * card in a `ccv3` text chunk, preferred, or a `chara` one).
 * @throws `invalid_request` naming the problem: malformed JSON, a broken PNG, no card chunk;
 * `unsupported_media_type` for any other content type.
 */
export function parseCard(contentType: string, body: Uint8Array): ParsedCard {
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type === "image/png") {
    const text = readPngText(body);
    const chunk = text.has("ccv3") ? "ccv3" : text.has("chara") ? "chara" : null;
    if (chunk === null) {
      throw invalidCard("no_card_in_png", 'the PNG has no "ccv3" or "chara" text chunk');
    }
    return parseCardText(fromBase64(text.get(chunk)!, chunk), { chunk });
  }
  if (/^application\/([a-z.-]+\+)?json$/.test(type)) {
    let text: string;
    try {
      text = utf8.decode(body);
    } catch {
      throw invalidCard("malformed_json", "the body is not valid JSON");
    }
    return parseCardText(text);
  }
  throw new SimulacraError(
    "unsupported_media_type",
    `Cannot import a character card of content type "${
      type || "none"
    }": send it with Content-Type: application/json or image/png`,
    {
      details: {
        problem: "unsupported_content_type",
        expected: ["application/json", "image/png"],
        received: type || null,
      },
    },
  );
}

/** A text chunk's base64 as UTF-8 text. */
function fromBase64(text: string, chunk: string): string {
  try {
    return utf8.decode(Uint8Array.from(atob(text.trim()), (c) => c.charCodeAt(0)));
  } catch {
    throw notBase64Json(chunk);
  }
}
