/**
 * @module The JSON Schema a game describes an action's parameters with: the keywords of draft
 * 2020-12 that describe JSON values (types, properties, required, enums, bounds, items, anyOf),
 * checked as a schema before it is stored, and turned into a validator with zod 4's
 * `z.fromJSONSchema`. Keywords outside that set (`$ref`, `if`/`then`, `patternProperties`…) are
 * refused rather than ignored, so a schema never validates less than its author believes.
 */
import { z } from "zod";

const JSON_TYPES = ["object", "array", "string", "number", "integer", "boolean", "null"] as const;
const Primitive = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const count = z.number().int().min(0);

/** A regular expression JavaScript accepts (JSON Schema's `pattern`). */
const Pattern = z.string().max(500).refine((p) => {
  try {
    new RegExp(p, "u");
    return true;
  } catch {
    return false;
  }
}, "Give a valid regular expression");

/** One JSON Schema (sub)schema of the supported subset. */
export type ParameterSchema = {
  type?: (typeof JSON_TYPES)[number] | (typeof JSON_TYPES)[number][];
  title?: string;
  description?: string;
  properties?: Record<string, ParameterSchema>;
  required?: string[];
  additionalProperties?: boolean | ParameterSchema;
  items?: ParameterSchema;
  enum?: (string | number | boolean | null)[];
  const?: string | number | boolean | null;
  anyOf?: ParameterSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  examples?: unknown[];
};

/** The supported subset of JSON Schema, as a zod schema of schemas. */
export const ParameterSchema: z.ZodType<ParameterSchema> = z.lazy(() =>
  z.strictObject({
    type: z.union([z.enum(JSON_TYPES), z.array(z.enum(JSON_TYPES)).min(1)]).optional(),
    title: z.string().max(200).optional(),
    description: z.string().max(1000).optional(),
    properties: z.record(z.string().min(1).max(64), ParameterSchema).optional(),
    required: z.array(z.string().min(1).max(64)).optional(),
    additionalProperties: z.union([z.boolean(), ParameterSchema]).optional(),
    items: ParameterSchema.optional(),
    enum: z.array(Primitive).min(1).max(100).optional(),
    const: Primitive.optional(),
    anyOf: z.array(ParameterSchema).min(1).max(20).optional(),
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    exclusiveMinimum: z.number().optional(),
    exclusiveMaximum: z.number().optional(),
    multipleOf: z.number().positive().optional(),
    minLength: count.optional(),
    maxLength: count.optional(),
    pattern: Pattern.optional(),
    minItems: count.optional(),
    maxItems: count.optional(),
    default: z.json().optional(),
    examples: z.array(z.json()).optional(),
  }).superRefine((schema, ctx) => {
    for (const name of schema.required ?? []) {
      if (schema.properties !== undefined && !(name in schema.properties)) {
        ctx.addIssue({
          code: "custom",
          path: ["required"],
          message: `"${name}" is required but not among the properties`,
        });
      }
    }
  })
);

/** Deepest nesting of a parameters schema: arguments are a game's call, not a document. */
const MAX_DEPTH = 6;

function depthOf(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  return 1 + Math.max(0, ...Object.values(value).map(depthOf));
}

/**
 * Why `parameters` is not an action's parameter schema (an object schema of the supported
 * subset), or null when it is.
 */
export function parameterSchemaProblem(parameters: unknown): string | null {
  if (depthOf(parameters) > MAX_DEPTH * 2) {
    return `nests deeper than ${MAX_DEPTH} levels`;
  }
  const parsed = ParameterSchema.safeParse(parameters);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue.path.length > 0 ? ` at "${issue.path.join(".")}"` : "";
    return `is not a supported JSON Schema${at}: ${issue.message}`;
  }
  if (parsed.data.type !== "object") return 'must be a schema of "type": "object"';
  try {
    z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (err) {
    return `is not a usable JSON Schema: ${err instanceof Error ? err.message : String(err)}`;
  }
  return null;
}

/** A validator of arguments against an action's (already checked) parameter schema. */
export function argumentsValidator(parameters: ParameterSchema): z.ZodType {
  return z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
}
