/**
 * @module Text hygiene at the edge: control characters (other than tab and line breaks) and
 * lone UTF-16 surrogates never reach prompts or stores, and JSON nested past a sane depth is
 * refused before anything walks it recursively.
 */

/** C0 and C1 controls except tab, line feed and carriage return, plus DEL. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;
// deno-lint-ignore no-control-regex -- as above
const CONTROL_ALL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;
/** A high surrogate without a low one after it, or a low one without a high one before it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATE_ALL =
  /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** The deepest JSON nesting accepted anywhere (bodies, cards, card extensions). */
export const MAX_JSON_DEPTH = 64;

/** What is wrong with a string: a control character or a lone surrogate; null when clean. */
export function unsafeTextReason(text: string): string | null {
  if (CONTROL.test(text)) {
    return "contains a control character (only tab and line breaks are allowed)";
  }
  if (LONE_SURROGATE.test(text)) return "contains a lone UTF-16 surrogate (not valid text)";
  return null;
}

/** The text without control characters (other than tab and line breaks) and lone surrogates. */
export function stripUnsafeText(text: string): string {
  return text.replace(CONTROL_ALL, "").replace(LONE_SURROGATE_ALL, "\uFFFD");
}

/** What in valid JSON text can decode to a character {@linkcode unsafeTextReason} refuses. */
const UNSAFE_IN_JSON = /[\u007F-\u009F\uD800-\uDFFF]|\\[bfu]/;

/**
 * Whether valid JSON text may hold a string (key or value) that is not clean text: false means
 * none does, without parsing and walking it. JSON strings hold no raw C0 controls, so only DEL,
 * the C1 controls, surrogates and the escapes `\b`, `\f` and `\u` can produce one. One
 * native search of the text: an import checks every line (issue 25).
 */
export function jsonMayHoldUnsafeText(text: string): boolean {
  return UNSAFE_IN_JSON.test(text);
}

/**
 * The first string (key or value) in a parsed JSON value that is not clean text, with its path
 * (`a.b.0`), or null. Iterative, so no depth can overflow the stack.
 */
export function findUnsafeText(value: unknown): { path: string; reason: string } | null {
  const stack: [unknown, string][] = [[value, ""]];
  while (stack.length > 0) {
    const [item, path] = stack.pop()!;
    if (typeof item === "string") {
      const reason = unsafeTextReason(item);
      if (reason) return { path, reason };
    } else if (Array.isArray(item)) {
      item.forEach((v, i) => stack.push([v, path ? `${path}.${i}` : String(i)]));
    } else if (item !== null && typeof item === "object") {
      for (const [key, v] of Object.entries(item)) {
        const at = path ? `${path}.${key}` : key;
        const reason = unsafeTextReason(key);
        if (reason) return { path: at, reason: `its key ${reason}` };
        stack.push([v, at]);
      }
    }
  }
  return null;
}

/** A parsed JSON value with every string (and key) stripped by {@linkcode stripUnsafeText}. */
export function stripUnsafeJson(value: unknown): unknown {
  if (typeof value === "string") return stripUnsafeText(value);
  if (Array.isArray(value)) return value.map(stripUnsafeJson);
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      Object.defineProperty(out, stripUnsafeText(key), {
        value: stripUnsafeJson(v),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}

/**
 * Whether JSON text nests arrays and objects deeper than `max`, found by one scan of the text
 * (strings skipped) before any parser or schema recurses into it.
 */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  // Text with no more than `max` opening brackets cannot nest deeper: most texts (an import's
  // memory lines are mostly one long base64 string) are answered by native searches alone.
  if (countUpTo(text, "{", max + 1) + countUpTo(text, "[", max + 1) <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92) i++; // backslash: skip the escaped character
      else if (ch === 34) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 123 || ch === 91) {
      if (++depth > max) return true;
    } else if (ch === 125 || ch === 93) depth--;
  }
  return false;
}

/** How often `char` occurs in `text`, counting no further than `limit`. */
function countUpTo(text: string, char: string, limit: number): number {
  let n = 0;
  for (let i = text.indexOf(char); i !== -1 && n < limit; i = text.indexOf(char, i + 1)) n++;
  return n;
}
