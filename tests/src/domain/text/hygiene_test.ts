import assert from "node:assert/strict";
import {
  findUnsafeText,
  jsonDepthExceeds,
  stripUnsafeJson,
  stripUnsafeText,
  unsafeTextReason,
} from "../../../../src/domain/text/hygiene.ts";

Deno.test("unsafeTextReason() allows tab and line breaks, refuses other controls and lone surrogates", () => {
  assert.equal(unsafeTextReason("line one\nline two\r\n\tindented — ünïcode 🎉"), null);
  for (const bad of ["a\u0000b", "bell\u0007", "esc\u001b[31m", "del\u007f", "c1\u0085"]) {
    assert.match(unsafeTextReason(bad)!, /control character/, JSON.stringify(bad));
  }
  assert.match(unsafeTextReason("half \ud83c emoji")!, /lone UTF-16 surrogate/);
  assert.match(unsafeTextReason("\udf89 low first")!, /lone UTF-16 surrogate/);
});

Deno.test("findUnsafeText() names the path of the first bad string or key, at any depth", () => {
  assert.equal(findUnsafeText({ a: ["fine", { b: "fine\n" }] }), null);
  assert.deepEqual(findUnsafeText({ a: ["fine", { b: "x\u0000" }] })?.path, "a.1.b");
  assert.match(findUnsafeText({ ["k\u0001"]: 1 })!.reason, /its key/);
  let deep: unknown = "\u0002";
  for (let i = 0; i < 20_000; i++) deep = [deep];
  assert.ok(findUnsafeText(deep), "no stack overflow on deep values");
});

Deno.test("stripUnsafeText() and stripUnsafeJson() remove controls and replace lone surrogates", () => {
  assert.equal(stripUnsafeText("a\u0000b\u0007c\n\td\ud800"), "abc\n\td\ufffd");
  assert.deepEqual(stripUnsafeJson({ ["n\u0001ame"]: ["x\u001by", 3, null] }), {
    name: ["xy", 3, null],
  });
});

Deno.test("jsonDepthExceeds() counts nesting outside strings only", () => {
  assert.equal(jsonDepthExceeds('{"a":[[[1]]]}', 4), false);
  assert.equal(jsonDepthExceeds('{"a":[[[[1]]]]}', 4), true);
  assert.equal(jsonDepthExceeds(`{"a":"${"[".repeat(1000)}\\"{{{{"}`, 4), false);
  assert.equal(jsonDepthExceeds("[".repeat(10_000) + "]".repeat(10_000)), true);
  // Many brackets, shallow: more than `max` of them sends it past the quick count.
  assert.equal(jsonDepthExceeds(`[${"[1],{},".repeat(100)}0]`, 4), false);
  assert.equal(jsonDepthExceeds(`[${"[1],".repeat(100)}[[[[2]]]]]`, 4), true);
});
