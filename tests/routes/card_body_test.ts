import assert from "node:assert/strict";
import { blankPng, writePngText } from "../../lib/png_text.ts";
import { parseCard } from "../../routes/card_body.ts";
import {
  CREATOR_SECRET,
  maraV2,
  maraV3,
  pngCard,
  problemOf,
} from "../src/domain/persona/_card_fixture.ts";

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

Deno.test("parseCard() reads V2 and V3 JSON and drops creator notes", () => {
  const v2 = parseCard("application/json", json(maraV2()));
  assert.equal(v2.spec, "chara_card_v2");
  assert.equal(v2.data.name, "Mara Vell");
  assert.equal(v2.data.character_book.entries.length, 3);
  const v3 = parseCard("application/json; charset=utf-8", json(maraV3()));
  assert.equal(v3.spec, "chara_card_v3");
  assert.equal(v3.data.nickname, "Cap");
  for (const parsed of [v2, v3]) {
    assert.doesNotMatch(JSON.stringify(parsed), new RegExp(CREATOR_SECRET));
    assert.ok(!("creator_notes" in parsed.data));
  }
});

Deno.test("parseCard() reads PNG cards and prefers ccv3 over chara", () => {
  const both = parseCard("image/png", pngCard({ chara: maraV2(), ccv3: maraV3("Mara (V3)") }));
  assert.equal(both.spec, "chara_card_v3");
  assert.equal(both.data.name, "Mara (V3)");
  const v2 = parseCard("image/png", pngCard({ chara: maraV2() }));
  assert.equal(v2.spec, "chara_card_v2");
});

Deno.test("parseCard() names what is wrong with a broken card", () => {
  assert.equal(problemOf(() => parseCard("application/json", json([1]))), "not_an_object");
  assert.equal(
    problemOf(() => parseCard("application/json", new TextEncoder().encode("{"))),
    "malformed_json",
  );
  assert.equal(problemOf(() => parseCard("application/json", json({ spec: "x" }))), "unknown_spec");
  assert.equal(
    problemOf(() => parseCard("application/json", json({ spec: "chara_card_v2", data: {} }))),
    "invalid_field",
  );
  assert.equal(problemOf(() => parseCard("image/png", blankPng())), "no_card_in_png");
  const notBase64 = writePngText(blankPng(), { chara: "%%% not base64 %%%" });
  assert.equal(problemOf(() => parseCard("image/png", notBase64)), "bad_png_text");
  assert.equal(problemOf(() => parseCard("image/png", json(maraV2()))), "not_png");
  assert.equal(
    problemOf(() => parseCard("text/plain", json(maraV2()))),
    "unsupported_content_type",
  );
});
