import assert from "node:assert/strict";
import { actionsSchema } from "../../../../src/domain/prompts/actions.ts";
import { importanceSchema } from "../../../../src/domain/prompts/importance.ts";

const locations = [
  { path: "Hobbs Cafe:cafe:counter", state: "" },
  { path: "Hobbs Cafe:cafe:coffee machine", state: "off" },
];

function actions(start: string, location = 1) {
  return { actions: [{ start, durationMinutes: 30, description: "serve", location, emoji: "☕" }] };
}

Deno.test("answer schemas built once per shape still check each call's own bounds and counts", () => {
  const morning = { chunk: { start: "08:00", end: "09:00", description: "work" }, locations };
  const noon = { chunk: { start: "12:00", end: "13:00", description: "lunch" }, locations };
  assert.equal(actionsSchema(morning), actionsSchema({ ...morning }), "The same shape, one schema");
  assert.ok(actionsSchema(morning).safeParse(actions("08:00")).success);
  assert.ok(!actionsSchema(noon).safeParse(actions("08:00")).success, "Outside noon's chunk");
  assert.ok(actionsSchema(noon).safeParse(actions("12:00")).success);
  const fewer = { ...morning, locations: locations.slice(0, 1) };
  assert.ok(!actionsSchema(fewer).safeParse(actions("08:00", 2)).success, "One location listed");
  assert.ok(importanceSchema(2).safeParse({ scores: [1, 2] }).success);
  assert.ok(!importanceSchema(3).safeParse({ scores: [1, 2] }).success);
  assert.ok(importanceSchema(2, 1).safeParse({ scores: [1, 2], supersedes: [0, 1] }).success);
});
