/**
 * @module The OpenAPI 3.1 document rewritten as 3.0 for the docs page's renderer only. Swagger UI 5
 * sends a 3.1 document through ApiDOM, which refracts and normalizes all of it before listing a
 * single operation (about 1.6 s of script on a 2-core machine, 3–9 s of waiting); a 3.0 document
 * takes its older resolver, which lists the operations at once and resolves each on opening.
 * `/openapi.json` itself stays 3.1. The function runs in the browser (docs_page.ts embeds its
 * source), so it is self-contained: no imports, no outside names.
 */

// deno-lint-ignore no-explicit-any
type Json = any;

/**
 * A copy of `document` as OpenAPI 3.0.3: `type: [t, "null"]` becomes `type: t, nullable: true`,
 * numeric `exclusiveMinimum`/`exclusiveMaximum` become `minimum`/`maximum` with the 3.0 flag,
 * `prefixItems` (tuples) become `items` of any of their kinds, and `examples` a single `example`.
 */
export function asOpenApi30(document: Json): Json {
  function schemaOf(node: Json): Json {
    if (Array.isArray(node)) return node.map(schemaOf);
    if (node === null || typeof node !== "object") return node;
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) out[key] = schemaOf(value);
    if (Array.isArray(out.type)) {
      const kinds = out.type.filter((t: string) => t !== "null");
      if (kinds.length < out.type.length) out.nullable = true;
      out.type = kinds.length === 1 ? kinds[0] : undefined;
      if (kinds.length > 1) out.anyOf = kinds.map((t: string) => ({ type: t }));
    }
    for (
      const [exclusive, bound] of [["exclusiveMinimum", "minimum"], [
        "exclusiveMaximum",
        "maximum",
      ]]
    ) {
      if (typeof out[exclusive] === "number") {
        out[bound] = out[exclusive];
        out[exclusive] = true;
      }
    }
    if (Array.isArray(out.prefixItems)) {
      out.items = out.prefixItems.length === 1 ? out.prefixItems[0] : { anyOf: out.prefixItems };
      delete out.prefixItems;
    }
    if (Array.isArray(out.examples) && out.example === undefined && out.examples.length > 0) {
      out.example = out.examples[0];
      delete out.examples;
    }
    if (out.type === undefined) delete out.type;
    return out;
  }
  return { ...schemaOf(document), openapi: "3.0.3" };
}
