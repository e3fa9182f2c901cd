/**
 * @module A memory line checked without building the schema's objects: most of an import's
 * lines are well-formed memories, and zod's parse of each (a new record, its checks' results)
 * was a tenth of an import's time (BENCHMARKS.md, issue 25, 2d). Anything this check does not
 * accept goes through {@linkcode MemoryLine} itself, so a bad line's error is the schema's.
 */
import { MemoryKind, MemoryRecord, Provenance } from "../memory/mod.ts";
import { rememberRecent } from "../recent_memo.ts";
import { MAX_GAME_YEAR } from "../time/mod.ts";
import type { MemoryLine } from "./archive_format.ts";

/** The ids' rule (`ids.ts`); the test checks it against the schemas. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const KINDS: ReadonlySet<unknown> = new Set(MemoryKind.options);
// The schema itself, remembered: a world's provenances repeat.
const isProvenance = rememberRecent((p) => Provenance.safeParse(p).success, 4096);

type Check = (value: unknown) => boolean;

const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * `GameTime`'s rule by character codes (its regex and calendar check were most of this check's
 * time): `YYYY-MM-DDTHH:MM:SS`, a real date and time, years 1 to `MAX_GAME_YEAR`. The test
 * checks it against the schema.
 */
function isTimeText(text: string): boolean {
  if (text.length !== 19) return false;
  let digits = true;
  const at = (from: number, to: number) => {
    let n = 0;
    for (let i = from; i < to; i++) {
      const digit = text.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) digits = false;
      n = n * 10 + digit;
    }
    return n;
  };
  const y = at(0, 4), mo = at(5, 7), d = at(8, 10), h = at(11, 13), mi = at(14, 16);
  const s = at(17, 19);
  if (!digits || text[4] !== "-" || text[7] !== "-" || text[10] !== "T") return false;
  if (text[13] !== ":" || text[16] !== ":" || y < 1 || y > MAX_GAME_YEAR) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const days = mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo];
  return mo >= 1 && mo <= 12 && d >= 1 && d <= days && h < 24 && mi < 60 && s < 60;
}
const isId: Check = (v) => typeof v === "string" && ID.test(v);
const isString: Check = (v) => typeof v === "string";
const isGameTime: Check = (v) => typeof v === "string" && isTimeText(v);
const isInt = (min: number, max = Infinity): Check => (v) =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min && v <= max;

/** Each field of {@linkcode MemoryRecord}: its check, and whether it may be absent. */
const FIELDS: Record<string, { check: Check; optional: boolean }> = {
  id: { check: isId, optional: false },
  worldId: { check: isId, optional: false },
  agentId: { check: isId, optional: false },
  kind: { check: (v) => KINDS.has(v), optional: false },
  description: { check: (v) => typeof v === "string" && v.length >= 1, optional: false },
  createdAt: { check: isGameTime, optional: false },
  lastAccessedAt: { check: isGameTime, optional: false },
  importance: { check: isInt(1, 10), optional: false },
  importancePending: { check: (v) => typeof v === "boolean", optional: true },
  provenance: { check: (v) => typeof v === "string" && isProvenance(v), optional: false },
  evidence: { check: (v) => Array.isArray(v) && v.every(isId), optional: true },
  depth: { check: isInt(0), optional: true },
  location: { check: isString, optional: true },
  subject: { check: isString, optional: true },
  predicate: { check: isString, optional: true },
  object: { check: isString, optional: true },
  eventId: { check: isString, optional: true },
  confidence: { check: (v) => typeof v === "number" && v >= 0 && v <= 1, optional: true },
  keyId: { check: isString, optional: true },
  archivedAt: { check: isGameTime, optional: true },
  mergedInto: { check: isId, optional: true },
  count: { check: isInt(1), optional: true },
  firstAt: { check: isGameTime, optional: true },
  lastAt: { check: isGameTime, optional: true },
  invalidAt: { check: isGameTime, optional: true },
  supersededBy: { check: isId, optional: true },
};
const REQUIRED = Object.keys(FIELDS).filter((key) => !FIELDS[key].optional).length;
if (Object.keys(FIELDS).length !== Object.keys(MemoryRecord.shape).length) {
  throw new Error("memory_line_check: MemoryRecord has fields this check does not know");
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) &&
  Object.getPrototypeOf(v) === Object.prototype;

/**
 * `json` itself, typed, when it is a memory line {@linkcode MemoryLine} accepts as it is (no
 * field it would drop, none it would change: its parse would equal it); otherwise null, and
 * the caller parses it with the schema (which accepts some of these, e.g. with unknown fields
 * in the record, or refuses them with its message).
 */
export function wellFormedMemoryLine(json: unknown): MemoryLine | null {
  if (!isPlainObject(json) || json.type !== "memory") return null;
  const { memory, embedding } = json;
  if (Object.keys(json).length !== 3 || typeof embedding !== "string") return null;
  if (embedding.length > 1_000_000 || !isPlainObject(memory)) return null;
  let required = 0;
  for (const key in memory) {
    if (!Object.hasOwn(FIELDS, key)) return null;
    const field = FIELDS[key];
    if (!field.check(memory[key])) return null;
    if (!field.optional) required++;
  }
  return required === REQUIRED ? json as MemoryLine : null;
}
