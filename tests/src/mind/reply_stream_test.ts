import assert from "node:assert/strict";
import { partialStringField, SpokenWords } from "../../../src/mind/reply_stream.ts";

Deno.test("partialStringField() reads a top-level string field from JSON cut anywhere", () => {
  const json = JSON.stringify({
    thoughts: 'she says "reply": no',
    nested: { reply: "not this one" },
    reply: 'Hi! "Tea"?\nYes \u00e9\u{1F375}',
    bounded: false,
  });
  const full = partialStringField(json, "reply");
  assert.deepEqual(full, { value: 'Hi! "Tea"?\nYes \u00e9\u{1F375}', complete: true });
  let last = "";
  for (let end = 0; end <= json.length; end++) {
    const got = partialStringField(json.slice(0, end), "reply");
    if (got === null) {
      assert.equal(last, "", `field started before ${end}`);
      continue;
    }
    assert.ok(got.value.startsWith(last), `prefix grows at ${end}`);
    assert.ok(full!.value.startsWith(got.value), `a prefix of the value at ${end}`);
    last = got.value;
  }
  assert.equal(last, full!.value);
  assert.equal(partialStringField('{"thoughts":"x"}', "reply"), null);
});

Deno.test("SpokenWords sends the reply as deltas, without a Name: prefix the model added", () => {
  for (const reply of ["Isabella Rodriguez: Coming along nicely!", "  Coming along nicely!"]) {
    const deltas: string[] = [];
    const words = new SpokenWords("Isabella Rodriguez", (d) => deltas.push(d));
    const json = JSON.stringify({ reply, importance: 3 });
    for (let i = 0; i < json.length; i += 3) words.push(json.slice(i, i + 3));
    assert.equal(deltas.join(""), "Coming along nicely!");
    assert.ok(deltas.length > 3, "several deltas");
  }
  const deltas: string[] = [];
  const words = new SpokenWords("Isa", (d) => deltas.push(d));
  words.push('{"reply":"I');
  assert.deepEqual(deltas, [], "could still be the name");
  words.push('ndeed"}');
  assert.deepEqual(deltas.join(""), "Indeed");
});
