/** @module Tests of sampleJsonSchema(): deterministic values that satisfy JSON schemas. */
import assert from "node:assert/strict";
import { z } from "zod";
import { sampleJsonSchema } from "../../../lib/offline/json_schema_sample.ts";

Deno.test("sampleJsonSchema() draws strings from the text and is deterministic", () => {
  const schema = { type: "object", properties: { a: { type: "string" }, b: { type: "string" } } };
  const text = "Hobbs Cafe opens at eight";
  const first = sampleJsonSchema(schema, { text }) as { a: string; b: string };
  assert.deepEqual(sampleJsonSchema(schema, { text }), first);
  for (const value of [first.a, first.b]) {
    assert.ok(value.split(" ").every((word) => text.includes(word)), value);
  }
});

Deno.test("sampleJsonSchema() keeps numbers, lengths and counts within their bounds", () => {
  const value = sampleJsonSchema({
    type: "object",
    properties: {
      score: { type: "integer", minimum: 1, maximum: 10 },
      ratio: { type: "number", exclusiveMinimum: 0, exclusiveMaximum: 1 },
      big: { type: "integer", minimum: 100 },
      short: { type: "string", maxLength: 5 },
      long: { type: "string", minLength: 40 },
      few: { type: "array", items: { type: "boolean" }, minItems: 3, maxItems: 3 },
      code: { type: "string", pattern: "^[A-Z][0-9]$" },
      maybe: { type: ["string", "null"] },
    },
  }, { text: "one two three" }) as Record<string, unknown>;
  assert.equal(value.score, 6);
  assert.ok((value.ratio as number) > 0 && (value.ratio as number) < 1);
  assert.equal(value.big, 100);
  assert.ok((value.short as string).length <= 5);
  assert.ok((value.long as string).length >= 40);
  assert.deepEqual(value.few, [false, false, false]);
  assert.equal(value.code, "A1");
  assert.equal(typeof value.maybe, "string");
});

Deno.test("sampleJsonSchema() follows $ref and stops recursive schemas", () => {
  interface Area {
    name: string;
    children: Area[];
  }
  const Area: z.ZodType<Area> = z.lazy(() =>
    z.object({ name: z.string(), children: z.array(Area) })
  );
  const value = sampleJsonSchema(z.toJSONSchema(Area) as Record<string, unknown>, {
    text: "kitchen",
  });
  assert.ok(Area.safeParse(value).success);
});
