import assert from "node:assert/strict";
import {
  foldName,
  invisibleCharacterIn,
  stripInvisible,
  visibleName,
} from "../../../../src/domain/text/names.ts";
import { confusableSkeleton } from "../../../../lib/confusables.ts";

const fold = (name: string) => foldName(name, confusableSkeleton);

Deno.test("invisibleCharacterIn() names zero-width, soft hyphen, bidi and other format characters", () => {
  const cases: [string, string][] = [
    ["Bob\u200b Brand", "U+200B"],
    ["Sys\u00adtem", "U+00AD"],
    ["\u202eBob", "U+202E"],
    ["Bob\u2066", "U+2066"],
    ["Bo\u2060b", "U+2060"],
    ["\ufeffBob", "U+FEFF"],
    ["Bob\u034f", "U+034F"],
    ["B\u200do\u200cb", "U+200D"],
    ["\u3164", "U+3164"],
    ["Bob\u{E0041}", "U+E0041"],
  ];
  for (const [name, code] of cases) assert.equal(invisibleCharacterIn(name), code, name);
  for (const fine of ["Bob Brand", "Zoë", "李小龙", "Chef 👩🏽‍🍳", "❤️ Mia", "1️⃣ One", "🏳️‍🌈 Pride"]) {
    assert.equal(invisibleCharacterIn(fine), null, fine);
  }
});

Deno.test("stripInvisible() removes invisible characters and keeps the ones emoji are made of", () => {
  assert.equal(stripInvisible("Sys\u00adtem\u200b"), "System");
  assert.equal(stripInvisible("Chef 👩🏽‍🍳\u200b"), "Chef 👩🏽‍🍳");
});

Deno.test("visibleName() refuses invisible characters with a message naming the code point", () => {
  const refused = visibleName().safeParse("Bob\u200b Brand");
  assert.equal(refused.success, false);
  assert.match(refused.error!.issues[0].message, /invisible character \(U\+200B\)/);
  assert.equal(visibleName().parse("  Bob Brand "), "Bob Brand");
});

Deno.test("foldName() makes look-alike names equal: confusable letters, case, width, spacing", () => {
  const bob = fold("Bob Brand");
  for (
    const lookalike of [
      "Bоb Brand", // Cyrillic о
      "Вob Brand", // Cyrillic В
      "BOB  BRAND",
      "bob-brand",
      "Ｂｏｂ Ｂｒａｎｄ", // full-width
      "B0b Brand",
      "Bob\u200b Brand",
      "Βοb Βrand", // Greek Β, ο
    ]
  ) assert.equal(fold(lookalike), bob, lookalike);
  assert.equal(fold("sуstem"), fold("system"));
  assert.equal(fold("Sys\u00adtem"), fold("system"));
  assert.equal(fold("ΒΙLL"), fold("Bill"), "Greek capitals");
  assert.equal(fold("BILL"), fold("bill"));
  for (const other of ["Rob Brand", "Bób Brand", "Bob Brandt", "the player"]) {
    assert.notEqual(fold(other), bob, other);
  }
});
