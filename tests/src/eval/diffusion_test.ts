import assert from "node:assert/strict";
import { diffusion, mentionsFact } from "../../../src/eval/diffusion.ts";

const party = {
  originator: "lucia",
  allOf: [/\bparty\b/i],
  anyOf: [/valentine/i, /\bcafe\b/i],
};

Deno.test("mentionsFact() needs every allOf pattern and one anyOf pattern", () => {
  assert.equal(mentionsFact("Lucia is hosting a Valentine's party", party), true);
  assert.equal(mentionsFact("a party at the cafe on Tuesday", party), true);
  assert.equal(mentionsFact("a birthday party at home", party), false);
  assert.equal(mentionsFact("Valentine's Day is coming", party), false);
  assert.equal(mentionsFact("anything", { allOf: [], anyOf: [] }), true);
});

Deno.test("mentionsFact() is not thrown off by global patterns", () => {
  const fact = { allOf: [/party/gi], anyOf: [/cafe/gi] };
  for (let i = 0; i < 3; i++) assert.equal(mentionsFact("party at the cafe", fact), true);
});

Deno.test("diffusion() counts the originator and every agent with a memory of the fact", () => {
  const memories = new Map([
    ["lucia", ["Lucia Ferreira is opening the cafe"]],
    ["nadia", ['Lucia Ferreira said to Nadia Haddad: "Come to my Valentine\'s party!"']],
    ["felix", ["Felix Brandt is studying", "a party? no idea"]],
    ["jun", []],
  ]);
  const d = diffusion(party, memories);
  assert.deepEqual(d.knows, ["lucia", "nadia"]);
  assert.equal(d.count, 2);
  assert.equal(d.share, 0.5);
  assert.deepEqual(diffusion(party, new Map()), { knows: [], count: 0, share: 0 });
});
