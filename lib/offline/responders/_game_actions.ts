/**
 * @module The offline model's choice of a game action (PUT …/actions) for a message: a request
 * or command whose verb is the action's verb (or a synonym) maps to that action, its arguments
 * read out of the message against the action's JSON Schema; questions, statements, refusals and
 * requests for things no action does map to none.
 */
import type { PromptGameAction, ProposedGameActions } from "../../../src/domain/mod.ts";
import { stem, words } from "../text.ts";

/** Verbs a game's action names use, with the words players say for them. */
const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  give: ["give", "hand", "pass", "lend", "toss", "have"],
  hand: ["give", "hand", "pass"],
  sell: ["sell", "buy", "purchase"],
  buy: ["buy", "purchase", "sell"],
  open: ["open", "unlock"],
  unlock: ["open", "unlock"],
  close: ["close", "shut", "lock"],
  lock: ["lock", "shut", "close"],
  follow: ["follow", "come", "join", "accompany"],
  attack: ["attack", "fight", "hit", "strike", "kill"],
  heal: ["heal", "cure", "patch", "mend"],
  move: ["move", "go", "walk", "head", "run", "take"],
  go: ["go", "walk", "head", "move", "run"],
  play: ["play", "perform", "sing"],
  light: ["light", "ignite", "kindle"],
  repair: ["repair", "fix", "mend"],
  pour: ["pour", "serve"],
  cook: ["cook", "make", "prepare", "bake"],
  wait: ["wait", "stay", "hold"],
  trade: ["trade", "swap", "exchange"],
};

/** A message asking the character to do something, politely: the verb may come anywhere. */
const POLITE =
  /\b(?:please|could you|can you|would you|will you|can i|could i|may i|i'd like|i would like|i want|i need|let me have|let's|lets)\b/i;
/** A vocative or greeting before a command: "Mira, open the door", "Hey! follow me". */
const VOCATIVE = /^(?:(?:hey|hi|hello|ok|okay|now|quick|quickly|\p{Lu}\p{L}*)[,!]\s*)+/u;
/** A question about something, not a request: "Do you sell lanterns?", "What is that?". */
const ASKING = /^(?:do|does|did|is|are|was|were|have|has|what|where|why|how|who|when|which)\b/i;
/** A request turned down or taken back. */
const NEGATED = /\b(?:don't|do not|never|no need|not|stop|no thanks|no, thanks)\b/i;
/** Words a request's object is made of before the thing itself. */
const LEADING =
  /^(?:(?:me|us|him|her|them|you|it|the|a|an|some|my|your|this|that|these|those|one|another|of|over|out|up|please)\s+)+/i;
/** Where a request's object ends. */
const OBJECT_END =
  /\s+(?:to|for|with|from|at|in|on|into|please|and|so|because|now|right|if)\b|[,.;:!?]/i;
/** Properties that name a place rather than a thing. */
const PLACE_PROPERTY = /^(?:destination|place|location|where|to|area|target_location)$/i;
const NUMBER_WORDS = [
  "zero",
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
];

interface PropertySchema {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
}

/** The verb stems an action answers to: its name's words and their synonyms. */
function verbsOf(action: PromptGameAction): Set<string> {
  const out = new Set<string>();
  for (const part of action.name.split("_")) {
    const s = stem(part);
    if (SYNONYMS[s] === undefined && SYNONYMS[part] === undefined) continue;
    for (const syn of SYNONYMS[s] ?? SYNONYMS[part]) out.add(stem(syn));
  }
  // A name of no known verb ("ring_bell"): its first word is the verb.
  if (out.size === 0) out.add(stem(action.name.split("_")[0]));
  return out;
}

/** The index of the message's first word whose stem is one of `verbs`, or -1. */
function verbAt(tokens: readonly string[], verbs: ReadonlySet<string>): number {
  return tokens.findIndex((w) => verbs.has(stem(w)) || verbs.has(w));
}

/** The thing a request names after its verb: "give me the old lantern, please" → "old lantern". */
function objectAfter(text: string): string | null {
  const rest = text.replace(LEADING, "");
  const end = rest.search(OBJECT_END);
  let phrase = (end === -1 ? rest : rest.slice(0, end)).trim().replace(LEADING, "").trim();
  // Two objects ("give my friend the key"): the thing is the second.
  const second = /^(?:\S+\s+){0,2}?(\S+)\s+(?:the|a|an|some)\s+(.+)$/i.exec(phrase);
  if (second && !/^(?:of|for|from)$/i.test(second[1])) phrase = second[2];
  return phrase.length > 0 && phrase.split(/\s+/).length <= 5 ? phrase : null;
}

/** The place a request names: "walk me to the old mill" → "old mill". */
function placeIn(text: string): string | null {
  const m = /\b(?:to|into|towards|toward)\s+(?:the\s+)?([^,.;:!?]+)/i.exec(text);
  return m ? objectAfter(m[1]) : null;
}

function numberIn(text: string): number | null {
  const digits = /\b\d+(?:\.\d+)?\b/.exec(text);
  if (digits) return Number(digits[0]);
  const word = words(text).find((w) => NUMBER_WORDS.includes(w));
  return word === undefined ? null : NUMBER_WORDS.indexOf(word);
}

/** The value of one property read out of the message, or undefined when it says none. */
function valueOf(
  name: string,
  schema: PropertySchema,
  text: { whole: string; afterVerb: string },
): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.enum !== undefined) {
    const said = new Set(words(text.whole).map(stem));
    return schema.enum.find((v) =>
      typeof v === "string" && words(v).every((w) => said.has(stem(w)))
    );
  }
  if (type === "number" || type === "integer") return numberIn(text.whole) ?? undefined;
  if (type === "boolean") return true;
  if (type !== undefined && type !== "string") return undefined;
  return PLACE_PROPERTY.test(name)
    ? placeIn(text.whole) ?? undefined
    : objectAfter(text.afterVerb) ?? undefined;
}

/** The arguments of `action` read out of the message, or null when a required one is missing. */
function argumentsOf(
  action: PromptGameAction,
  text: { whole: string; afterVerb: string },
): Record<string, unknown> | null {
  const params = action.parameters as {
    properties?: Record<string, PropertySchema>;
    required?: string[];
  };
  const required = new Set(params.required ?? []);
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(params.properties ?? {})) {
    const value = valueOf(name, schema, text);
    if (value !== undefined) args[name] = value;
    else if (required.has(name)) return null;
  }
  return args;
}

/**
 * The game actions a message asks of the character: the action whose verb the request uses,
 * with the arguments the message gives, or none (not a request, negated, no action's verb, or a
 * required argument it does not say).
 */
export function pickGameActions(
  message: string,
  actions: readonly PromptGameAction[],
): ProposedGameActions {
  const text = message.trim().replace(VOCATIVE, "");
  if (NEGATED.test(text)) return [];
  // "Do you sell lanterns?" asks about the shop; "Can you …?" and "Could you …?" ask for a deed.
  if (ASKING.test(text)) return [];
  const polite = POLITE.test(text);
  const tokens = text.split(/\s+/);
  const bare = tokens.map((t) => t.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ""));
  for (const action of actions) {
    const at = verbAt(bare, verbsOf(action));
    // Without a polite form, only a command is a request: the verb comes first.
    if (at === -1 || (!polite && at !== 0)) continue;
    const afterVerb = tokens.slice(at + 1).join(" ");
    const args = argumentsOf(action, { whole: text, afterVerb });
    if (args !== null) return [{ name: action.name, arguments: JSON.stringify(args) }];
  }
  return [];
}
