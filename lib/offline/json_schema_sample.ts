/** @module Synthesises a deterministic value that satisfies a JSON schema, with strings drawn from a text. */
import { fnv1a } from "./_text.ts";

/** A JSON schema (draft 7 or 2020-12), as `z.toJSONSchema` or `zodResponseFormat` emit it. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** Options for {@linkcode sampleJsonSchema}. */
export interface SampleJsonSchemaOptions {
  /**
   * The text whose words fill string fields, e.g. the prompt's inputs.
   * @default ""
   */
  text?: string;
  /**
   * How deep recursive schemas may nest before optional parts are left out.
   * @default 12
   */
  maxDepth?: number;
}

type Schema = { readonly [keyword: string]: unknown };

interface Walk {
  root: JsonSchema;
  words: string[];
  maxDepth: number;
}

/** Where in the value a node is sampled: its JSON pointer and how deep it nests. */
interface At {
  path: string;
  depth: number;
}

const FALLBACK_WORDS = ["offline", "answer"];
const FORMAT_EXAMPLES: Record<string, string> = {
  "date-time": "2024-01-01T08:00:00.000Z",
  date: "2024-01-01",
  time: "08:00:00",
  duration: "PT1H",
  email: "agent@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  hostname: "example.com",
  ipv4: "127.0.0.1",
  ipv6: "::1",
  emoji: "🙂",
};
const PATTERN_CANDIDATES = ["a", "abc", "A1", "0", "x1", "🙂", "2024-01-01", "08:00", "a-b"];

/**
 * Builds a value that satisfies `schema`, the same for the same schema and text: strings are
 * runs of the text's words (or an example of their `format`), numbers sit inside their bounds,
 * arrays have their minimum length (at least 1), enums take their first value, unions their
 * first non-null branch, booleans are `false`. Keywords it cannot satisfy (rare patterns,
 * custom refinements) may yield an invalid value: validate the result.
 *
 * @example
 * ```ts
 * import { sampleJsonSchema } from "./json_schema_sample.ts";
 * sampleJsonSchema(
 *   { type: "object", properties: { mood: { enum: ["calm", "angry"] } }, required: ["mood"] },
 * ); // { mood: "calm" }
 * ```
 */
export function sampleJsonSchema(
  schema: JsonSchema,
  options: SampleJsonSchemaOptions = {},
): unknown {
  const words = (options.text ?? "")
    .split(/\s+/)
    .map((word) => word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ""))
    .filter((word) => word.length > 0);
  const walk: Walk = {
    root: schema,
    words: words.length > 0 ? words : FALLBACK_WORDS,
    maxDepth: options.maxDepth ?? 12,
  };
  return sample(walk, schema, { path: "", depth: 0 });
}

function sample(walk: Walk, node: JsonSchema, { path, depth }: At): unknown {
  if (typeof node === "boolean") return node ? text(walk, {}, path) : null;
  const schema = resolve(walk, node);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];

  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches) && branches.length > 0) {
    const nonNull = branches.filter((branch) => !isNullSchema(walk, branch));
    const chosen = depth >= walk.maxDepth || nonNull.length === 0 ? branches[0] : nonNull[0];
    if (depth >= walk.maxDepth && branches.some((b) => isNullSchema(walk, b))) return null;
    return sample(walk, chosen, { path, depth: depth + 1 });
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length > 0) {
    const parts = (schema.allOf as JsonSchema[]).map((part) =>
      sample(walk, part, { path, depth: depth + 1 })
    );
    return parts.every(isPlainObject) ? Object.assign({}, ...parts) : parts[0];
  }

  switch (typeOf(schema)) {
    case "null":
      return null;
    case "boolean":
      return false;
    case "integer":
      return number(schema, true);
    case "number":
      return number(schema, false);
    case "array":
      return array(walk, schema, { path, depth });
    case "object":
      return object(walk, schema, { path, depth });
    default:
      return text(walk, schema, path);
  }
}

function resolve(walk: Walk, schema: Schema, seen = 0): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#") || seen > 32) return schema;
  let target: unknown = walk.root;
  for (const raw of ref.slice(1).split("/").filter((part) => part.length > 0)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    target = isPlainObject(target) ? target[key] : undefined;
  }
  if (typeof target === "boolean") return target ? {} : { type: "null" };
  if (!isPlainObject(target)) return schema;
  const { $ref: _, ...siblings } = schema;
  return resolve(walk, { ...target, ...siblings }, seen + 1);
}

function isNullSchema(walk: Walk, branch: JsonSchema): boolean {
  if (typeof branch === "boolean") return false;
  const schema = resolve(walk, branch);
  return schema.type === "null" || ("const" in schema && schema.const === null);
}

function typeOf(schema: Schema): string {
  const type = schema.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) return type.find((t) => t !== "null") ?? "null";
  if ("properties" in schema || "additionalProperties" in schema) return "object";
  if ("items" in schema || "prefixItems" in schema) return "array";
  if ("minimum" in schema || "maximum" in schema) return "number";
  return "string";
}

function number(schema: Schema, integer: boolean): number {
  const step = integer ? 1 : 1e-6;
  let lo = -Number.MAX_SAFE_INTEGER;
  let hi = Number.MAX_SAFE_INTEGER;
  if (typeof schema.minimum === "number") lo = schema.minimum;
  if (typeof schema.exclusiveMinimum === "number") {
    lo = Math.max(lo, schema.exclusiveMinimum + step);
  }
  if (typeof schema.maximum === "number") hi = schema.maximum;
  if (typeof schema.exclusiveMaximum === "number") {
    hi = Math.min(hi, schema.exclusiveMaximum - step);
  }
  if (integer) {
    lo = Math.ceil(lo);
    hi = Math.floor(hi);
  }
  // A narrow range answers its middle (an importance of 1–10 gives 6); a wide one answers 1.
  let value = hi - lo <= 1000 ? (integer ? Math.ceil((lo + hi) / 2) : (lo + hi) / 2) : 1;
  value = Math.min(hi, Math.max(lo, value));
  const multipleOf = schema.multipleOf;
  if (typeof multipleOf === "number" && multipleOf > 0) {
    const up = Math.ceil(value / multipleOf) * multipleOf;
    value = up <= hi ? up : Math.floor(value / multipleOf) * multipleOf;
  }
  return value;
}

function array(walk: Walk, schema: Schema, { path, depth }: At): unknown[] {
  const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonSchema[]) : [];
  const min = typeof schema.minItems === "number" ? schema.minItems : 0;
  const max = typeof schema.maxItems === "number" ? schema.maxItems : Number.POSITIVE_INFINITY;
  const wanted = depth >= walk.maxDepth ? min : Math.max(min, prefix.length, 1);
  const length = Math.min(max, wanted);
  const items = (schema.items ?? {}) as JsonSchema;
  const out: unknown[] = [];
  for (let i = 0; i < length; i++) {
    const item = i < prefix.length ? prefix[i] : items;
    if (item === false) break;
    let value = sample(walk, item, { path: `${path}/${i}`, depth: depth + 1 });
    if (schema.uniqueItems === true && typeof value === "number") value += i;
    out.push(value);
  }
  return out;
}

function object(walk: Walk, schema: Schema, { path, depth }: At): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [key, property] of Object.entries(properties)) {
    if (depth >= walk.maxDepth && !required.has(key)) continue;
    out[key] = sample(walk, property as JsonSchema, { path: `${path}/${key}`, depth: depth + 1 });
  }
  const extra = schema.additionalProperties;
  const minProperties = typeof schema.minProperties === "number" ? schema.minProperties : 0;
  for (let i = 1; Object.keys(out).length < minProperties; i++) {
    const key = `key${i}`;
    if (key in out) continue;
    const at = { path: `${path}/${key}`, depth: depth + 1 };
    out[key] = sample(walk, isPlainObject(extra) ? extra : {}, at);
  }
  return out;
}

function text(walk: Walk, schema: Schema, path: string): string {
  const format = typeof schema.format === "string" ? FORMAT_EXAMPLES[schema.format] : undefined;
  const key = path.slice(path.lastIndexOf("/") + 1);
  let candidate: string;
  if (format !== undefined) candidate = format;
  else if (schema.format === "uuid") candidate = uuid(path + walk.words.join(" "));
  else if (/emoji/i.test(key)) candidate = "🙂";
  else candidate = phrase(walk.words, fnv1a(path), 8);

  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Number.POSITIVE_INFINITY;
  const fit = (value: string) => {
    let out = value;
    for (let i = 1; out.length < min; i++) out += ` ${walk.words[i % walk.words.length]}`;
    while (out.length > max) out = Array.from(out).slice(0, -1).join("").trimEnd();
    return out;
  };
  const pattern = compile(schema.pattern);
  if (pattern === undefined) return fit(candidate);
  const slug = candidate.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  for (const option of [candidate, slug, ...walk.words, ...PATTERN_CANDIDATES]) {
    const fitted = fit(option);
    if (pattern.test(fitted)) return fitted;
  }
  return fit(candidate);
}

function phrase(words: string[], start: number, count: number): string {
  const n = Math.min(count, words.length);
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(words[(start + i) % words.length]);
  return out.join(" ");
}

function uuid(seed: string): string {
  let hex = "";
  for (let i = 0; hex.length < 32; i++) hex += fnv1a(`${i}:${seed}`).toString(16).padStart(8, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${
    hex.slice(20, 32)
  }`;
}

function compile(pattern: unknown): RegExp | undefined {
  if (typeof pattern !== "string") return undefined;
  try {
    return new RegExp(pattern, "u");
  } catch {
    try {
      return new RegExp(pattern);
    } catch {
      return undefined;
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
