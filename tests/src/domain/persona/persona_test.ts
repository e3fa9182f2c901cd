import assert from "node:assert/strict";
import { Persona } from "../../../../src/domain/persona/persona.ts";
import { isabellaPersona } from "./_persona_fixture.ts";

Deno.test("Persona accepts the Narrative Schema and fills defaults", () => {
  const { nickname: _n, relationships: _r, ...minimal } = isabellaPersona();
  const parsed = Persona.parse(minimal);
  assert.equal(parsed.nickname, "");
  assert.deepEqual(parsed.relationships, []);
  assert.equal(parsed.scene_facets.length, 3);
});

Deno.test("Persona enforces 4–8 core traits and 1–12 facets", async (t) => {
  const base = isabellaPersona();
  const trait = { trait: "kind", desc: "" };
  await t.step("too few or too many traits", () => {
    assert.ok(!Persona.safeParse({ ...base, core_traits: base.core_traits.slice(0, 3) }).success);
    assert.ok(!Persona.safeParse({ ...base, core_traits: Array(9).fill(trait) }).success);
    assert.ok(Persona.safeParse({ ...base, core_traits: Array(8).fill(trait) }).success);
  });
  await t.step("no facets or more than 12", () => {
    assert.ok(!Persona.safeParse({ ...base, scene_facets: [] }).success);
    const many = Array.from(
      { length: 13 },
      (_, i) => ({ ...base.scene_facets[0], title: `F${i}` }),
    );
    assert.ok(!Persona.safeParse({ ...base, scene_facets: many }).success);
    assert.ok(Persona.safeParse({ ...base, scene_facets: many.slice(0, 12) }).success);
  });
});

Deno.test("Persona rejects duplicate facet titles, unknown fields and oversized text", () => {
  const base = isabellaPersona();
  const dup = Persona.safeParse({
    ...base,
    scene_facets: [base.scene_facets[0], { ...base.scene_facets[1], title: "party HOST" }],
  });
  assert.ok(!dup.success);
  assert.match(dup.error!.issues[0].message, /unique/);
  assert.deepEqual(dup.error!.issues[0].path, ["scene_facets", 1, "title"]);
  const extra = Persona.safeParse({ ...base, creator_notes: "x" });
  assert.equal(extra.error?.issues[0].code, "unrecognized_keys");
  assert.ok(!Persona.safeParse({ ...base, global_summary: "x".repeat(4001) }).success);
  const longCues = { ...base.scene_facets[0], cue_phrases: Array(21).fill("party") };
  assert.ok(!Persona.safeParse({ ...base, scene_facets: [longCues] }).success);
});
