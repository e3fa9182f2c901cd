/** @module The OpenAPI document served at /openapi.json, with request bodies in input form. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { VERSION } from "../src/domain/mod.ts";
import type { AppEnv } from "./app_env.ts";

type Json = Record<string, unknown>;
type Document = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;

const SCHEMA_REF = "#/components/schemas/";

/** The document's fixed parts; `servers` is set per request (see {@linkcode withServer}). */
const CONFIG: Parameters<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>[0] = {
  openapi: "3.1.0",
  info: {
    title: "Simulacra",
    version: VERSION,
    description:
      "Believable minds for game characters: memory streams, reflection, planning, reactions, dialogue and in-character replies over HTTP. All times are game time, YYYY-MM-DDTHH:MM:SS.",
  },
  security: [{ adminKey: [] }],
};

/**
 * Builds the document from the app's routes. Request bodies are inlined in input form: a field
 * with a default is optional to the caller, and code generators such as openapi-typescript treat
 * `default` in a shared component as "always present" (right for responses, wrong for requests).
 * So each request body gets its own copy of the schemas it uses, and components keep the
 * response (output) shapes. Components nothing refers to any more are dropped.
 */
export function buildOpenApiDocument(app: OpenAPIHono<AppEnv>): Document {
  const doc = app.getOpenAPI31Document(CONFIG);
  const schemas = (doc.components?.schemas ?? {}) as Record<string, Json>;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, Json>)) {
      const content = (op?.requestBody as Json | undefined)?.content as
        | Record<string, Json>
        | undefined;
      for (const media of Object.values(content ?? {})) {
        if (media.schema) media.schema = inlineRefs(media.schema, schemas, []);
      }
    }
  }
  pruneUnusedSchemas(doc as unknown as Json, schemas);
  return doc;
}

/** The document with `servers` naming the origin the caller reached us on. */
export function withServer(doc: Document, origin: string): Document {
  return { ...doc, servers: [{ url: origin, description: "This server" }] };
}

function inlineRefs(node: unknown, schemas: Record<string, Json>, stack: string[]): unknown {
  if (Array.isArray(node)) return node.map((item) => inlineRefs(item, schemas, stack));
  if (node === null || typeof node !== "object") return node;
  const { $ref, ...rest } = node as Json;
  if (typeof $ref === "string" && $ref.startsWith(SCHEMA_REF)) {
    const name = $ref.slice(SCHEMA_REF.length);
    // A recursive schema stays a reference where it recurs.
    if (stack.includes(name) || !schemas[name]) return node;
    const target = inlineRefs(schemas[name], schemas, [...stack, name]) as Json;
    return { ...target, ...(inlineRefs(rest, schemas, stack) as Json) };
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [key, inlineRefs(value, schemas, stack)]),
  );
}

/** Removes component schemas that no path (directly or through other schemas) refers to. */
function pruneUnusedSchemas(doc: Json, schemas: Record<string, Json>): void {
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(SCHEMA_REF)) {
        const name = value.slice(SCHEMA_REF.length);
        if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(doc.paths);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
}
