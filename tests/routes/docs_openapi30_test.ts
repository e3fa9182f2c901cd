/**
 * The docs page hands Swagger UI the document as OpenAPI 3.0 (its 3.1 path takes seconds before it
 * lists anything): on the real document, no 3.1-only schema form is left, what they said is kept
 * in 3.0 terms, and the served document is untouched.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { asOpenApi30 } from "../../routes/docs_openapi30.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Every object in `node`, depth first. */
function* objectsIn(node: Json): Generator<Json> {
  if (Array.isArray(node)) { for (const item of node) yield* objectsIn(item); }
  else if (node !== null && typeof node === "object") {
    yield node;
    for (const value of Object.values(node)) yield* objectsIn(value);
  }
}

Deno.test("asOpenApi30 rewrites the document's 3.1 schema forms as 3.0 and leaves it untouched", async () => {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const document = await (await app.request("/openapi.json")).json();
  const before = JSON.stringify(document);
  const nullable =
    [...objectsIn(document)].filter((o) => Array.isArray(o.type) && o.type.includes("null")).length;
  assert.ok(nullable > 0, "the document has no `type: [t, null]` to rewrite any more");

  const converted = asOpenApi30(document);
  assert.equal(JSON.stringify(document), before, "the argument was changed");
  assert.equal(converted.openapi, "3.0.3");
  assert.deepEqual(Object.keys(converted.paths), Object.keys(document.paths));
  const objects = [...objectsIn(converted)];
  assert.deepEqual(objects.filter((o) => Array.isArray(o.type)), []);
  assert.deepEqual(objects.filter((o) => "prefixItems" in o), []);
  assert.deepEqual(objects.filter((o) => typeof o.exclusiveMinimum === "number"), []);
  assert.deepEqual(objects.filter((o) => typeof o.exclusiveMaximum === "number"), []);
  assert.equal(objects.filter((o) => o.nullable === true).length, nullable);
});

Deno.test("asOpenApi30 keeps bounds, tuples and examples in 3.0 terms", () => {
  const schema = {
    type: "object",
    properties: {
      weight: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      at: { type: "array", prefixItems: [{ type: "number" }, { type: "string" }] },
      note: { type: ["string", "null"], examples: ["hello"] },
      id: { type: ["string", "integer"] },
    },
  };
  const out = asOpenApi30({ openapi: "3.1.0", components: { schemas: { S: schema } } });
  const p = out.components.schemas.S.properties;
  assert.deepEqual(p.weight, {
    type: "number",
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1,
    exclusiveMaximum: true,
  });
  assert.deepEqual(p.at, {
    type: "array",
    items: { anyOf: [{ type: "number" }, { type: "string" }] },
  });
  assert.deepEqual(p.note, { type: "string", nullable: true, example: "hello" });
  assert.deepEqual(p.id, { anyOf: [{ type: "string" }, { type: "integer" }] });
});
