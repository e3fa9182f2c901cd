/**
 * @module Character Cards V2/V3: parse their JSON (routes/ takes it out of a PNG card) without
 * their creator notes, and the text helpers an import uses (macros, seed phrases). Importing is
 * `card_import.ts`, exporting `card_export.ts` (Memory-Driven Role-Playing §3.3).
 * @see https://github.com/malfoyslastname/character-card-spec-v2
 * @see https://github.com/kwaroran/character-card-spec-v3
 */
import { z } from "zod";
import { SimulacraError } from "../errors.ts";
import type { CardText } from "./persona.ts";
import { parseCardJson } from "./card_limits.ts";

/** Where our own data lives inside a card's `extensions`. */
export const EXTENSION_KEY = "simulacra";

const str = z.preprocess(
  (v) => (typeof v === "string" ? v : v == null ? "" : String(v)),
  z.string(),
);
const strList = z.preprocess(
  (v) => (Array.isArray(v) ? v.filter((x) => typeof x === "string") : []),
  z.array(z.string()),
);
const record = z.preprocess(
  (v) => (typeof v === "object" && v !== null && !Array.isArray(v) ? v : {}),
  z.record(z.string(), z.unknown()),
);

const BookEntry = z.object({
  keys: strList,
  content: str,
  name: str,
  enabled: z.preprocess((v) => v !== false, z.boolean()),
});

/**
 * The card fields we read. Parsing keeps only these, so `creator_notes` (and V3's
 * `creator_notes_multilingual`, and lorebook `comment`s) never get past this point.
 */
const CardData = z.object({
  name: z.string().trim().min(1, "the card has no name"),
  nickname: str,
  description: str,
  personality: str,
  scenario: str,
  first_mes: str,
  mes_example: str,
  system_prompt: str,
  post_history_instructions: str,
  alternate_greetings: strList,
  tags: strList,
  creator: str,
  character_version: str,
  extensions: record,
  character_book: z.preprocess(
    (v) => (typeof v === "object" && v !== null ? v : { entries: [] }),
    z.object({
      name: str,
      entries: z.preprocess((v) => (Array.isArray(v) ? v : []), z.array(BookEntry)),
    }),
  ),
});
type CardData = z.infer<typeof CardData>;

/** A card as we keep it: its spec and the fields we use. */
export interface ParsedCard {
  spec: CardText["spec"];
  data: CardData;
}

/** The `invalid_request` error of a card that cannot be imported, naming the problem. */
export function invalidCard(problem: string, message: string): SimulacraError {
  return new SimulacraError("invalid_request", `Cannot import the character card: ${message}`, {
    details: { problem },
  });
}

/** How deep a card's JSON may nest (real cards nest a handful of levels). */
const MAX_CARD_DEPTH = 64;

/** Whether a JSON value nests deeper than `max` levels (iterative: no recursion to overflow). */
function nestingExceeds(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (typeof v !== "object" || v === null) continue;
    if (depth > max) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * Reads a card object: V3 (`spec: "chara_card_v3"`), V2 (`"chara_card_v2"`) or a V1 card (the
 * fields at top level).
 * @throws `invalid_request` naming the problem (not an object, unknown spec, no name).
 */
export function parseCardObject(value: unknown): ParsedCard {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidCard("not_an_object", "the card is not a JSON object");
  }
  // Refused before any model call: storing a deeper value would overflow the stack mid-write.
  if (nestingExceeds(value, MAX_CARD_DEPTH)) {
    throw invalidCard(
      "too_deep",
      `the card nests objects or arrays more than ${MAX_CARD_DEPTH} levels deep`,
    );
  }
  const obj = value as Record<string, unknown>;
  let spec: CardText["spec"];
  let data: unknown;
  if (obj.spec === "chara_card_v3" || obj.spec === "chara_card_v2") {
    spec = obj.spec;
    data = obj.data;
    if (typeof data !== "object" || data === null) {
      throw invalidCard("no_data", `a "${obj.spec}" card needs a "data" object`);
    }
  } else if (obj.spec === undefined && typeof obj.name === "string") {
    spec = "chara_card_v1";
    data = obj;
  } else {
    throw invalidCard(
      "unknown_spec",
      `spec ${JSON.stringify(obj.spec ?? null)} is not "chara_card_v2" or "chara_card_v3"`,
    );
  }
  const parsed = CardData.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidCard(
      "invalid_field",
      `field "${issue?.path.join(".") || "data"}": ${issue?.message}`,
    );
  }
  return { spec, data: parsed.data };
}

/** Options for {@linkcode parseCardText}. */
export interface ParseCardTextOptions {
  /** The PNG text chunk the text came from, for the error; unset: a JSON body. */
  chunk?: string;
}

/**
 * Reads a card from its JSON text, as the HTTP layer takes it from a request body or from a PNG
 * card's text chunk.
 * @throws `invalid_request` naming the problem: malformed JSON (`bad_png_text` for a chunk's),
 * and whatever {@linkcode parseCardObject} refuses.
 */
export function parseCardText(text: string, options: ParseCardTextOptions = {}): ParsedCard {
  let value: unknown;
  try {
    value = parseCardJson(text);
  } catch (err) {
    if (err instanceof SimulacraError) throw err;
    throw options.chunk === undefined
      ? invalidCard("malformed_json", "the body is not valid JSON")
      : notBase64Json(options.chunk);
  }
  return parseCardObject(value);
}

/** The error for a PNG text chunk that does not hold base64-encoded JSON. */
export function notBase64Json(chunk: string): SimulacraError {
  return invalidCard("bad_png_text", `the "${chunk}" text chunk is not base64-encoded JSON`);
}

/** Replaces the `{{char}}` / `{{user}}` macros (and `<BOT>` / `<USER>`) in card text. */
export function expandMacros(text: string, name: string): string {
  return text
    .replace(/\{\{char\}\}|<BOT>/gi, name)
    .replace(/\{\{user\}\}|<USER>/gi, "the user")
    .trim();
}

/** Card text split into seed phrases: one per sentence (lines first), long ones clipped. */
export function cardSeedPhrases(text: string, max: number): string[] {
  return text
    .split(/\n+/)
    .flatMap((l) => l.split(/(?<=[.!?])\s+/))
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => (s.length > 600 ? `${s.slice(0, 599)}…` : s))
    .slice(0, max);
}
