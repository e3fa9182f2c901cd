import assert from "node:assert/strict";
import { namedPeople, networkDensity } from "../../../src/eval/network_density.ts";

const people = [
  { id: "a", name: "Grace Okafor" },
  { id: "b", name: "Tobi Okafor" },
  { id: "c", name: "Walter Bergstrom" },
  { id: "d", name: "Walter Price" },
];

Deno.test("namedPeople() matches full names in any case and unique first names as written", () => {
  assert.deepEqual([...namedPeople("grace okafor waved", people)], ["a"]);
  assert.deepEqual([...namedPeople("Tobi said hi", people)], ["b"]);
  assert.deepEqual([...namedPeople("by the grace of luck", people)], [], "lower-case first name");
  assert.deepEqual([...namedPeople("Walter came by", people)], [], "two people are Walter");
  assert.deepEqual([...namedPeople("Walter Price came by", people)], ["d"]);
  assert.deepEqual([...namedPeople("Tobias is new", people)], [], "whole words only");
  assert.deepEqual([...namedPeople("Okafor family", people)], []);
});

Deno.test("networkDensity() counts pairs who both remember each other over all pairs", () => {
  const memories = new Map([
    ["a", ["Grace Okafor is the mother of Tobi Okafor", "Grace met Walter Bergstrom"]],
    ["b", ["Tobi loves his mother, Grace"]],
    ["c", ["Walter Bergstrom lives alone"]],
    ["d", ["Walter Price knows Tobi Okafor"]],
  ]);
  const d = networkDensity(people, memories);
  assert.deepEqual(d.pairs, [["a", "b"]], "a→c and d→b are one-way");
  assert.equal(d.density, 1 / 6);
  assert.equal(networkDensity(people.slice(0, 1), memories).density, 0);
  assert.equal(networkDensity([], new Map()).density, 0);
});

Deno.test("networkDensity() ignores an agent naming itself", () => {
  const two = people.slice(0, 2);
  const memories = new Map([["a", ["Grace Okafor"]], ["b", ["Tobi Okafor"]]]);
  assert.equal(networkDensity(two, memories).density, 0);
});
