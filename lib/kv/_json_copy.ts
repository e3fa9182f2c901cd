/**
 * @module Private to lib/kv: a copy of a value as its JSON would read back, without the JSON.
 *
 * The memory store's cache holds each appended record as a reload would read it: its JSON,
 * parsed. An import's records are plain JSON values already, so a second `JSON.parse` of every
 * record pack cost more than copying them (BENCHMARKS.md, issue 25, 2f).
 */

/**
 * What `JSON.parse(JSON.stringify(value))` gives, or undefined when `value` holds anything whose
 * JSON is not itself (a number that is -0 or not finite, an `undefined`, function or symbol, an
 * object that is not plain or has `toJSON`, a `__proto__` key, a hole): then the caller takes the
 * round trip. Keys keep their order; nesting deeper than `depth` gives undefined too.
 */
export function jsonCopy(value: unknown, depth = 16): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0) ? value : undefined;
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (depth === 0) return undefined;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return undefined;
    const out = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) return undefined;
      const v = jsonCopy(value[i], depth - 1);
      if (v === undefined) return undefined;
      out[i] = v;
    }
    return out;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return undefined;
  const record = value as Record<string, unknown>;
  if ("toJSON" in record) return undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (key === "__proto__") return undefined;
    const v = jsonCopy(record[key], depth - 1);
    if (v === undefined) return undefined;
    out[key] = v;
  }
  return out;
}
