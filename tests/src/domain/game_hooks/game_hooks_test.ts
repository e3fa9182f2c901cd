import assert from "node:assert/strict";
import {
  activeGoals,
  checkProposedActions,
  type GameAction,
  goalStatus,
  goalsToStore,
  parameterSchemaProblem,
  triggerText,
} from "../../../../src/domain/mod.ts";

const GIVE: GameAction = {
  name: "give_item",
  description: "Hand an item over",
  parameters: {
    type: "object",
    properties: { item: { type: "string", minLength: 1 }, count: { type: "integer", minimum: 1 } },
    required: ["item"],
    additionalProperties: false,
  },
};

Deno.test("parameterSchemaProblem() takes the supported subset and names what is wrong", () => {
  assert.equal(parameterSchemaProblem(GIVE.parameters), null);
  assert.equal(
    parameterSchemaProblem({
      type: "object",
      properties: {
        dir: { enum: ["north", "south"] },
        tags: { type: "array", items: { type: "string" }, maxItems: 3 },
        to: { anyOf: [{ type: "string" }, { type: "null" }] },
      },
    }),
    null,
  );
  assert.match(parameterSchemaProblem({ type: "string" })!, /"type": "object"/);
  assert.match(parameterSchemaProblem({ type: "object", properties: 3 })!, /at "properties"/);
  assert.match(parameterSchemaProblem({ type: "object", $ref: "#/x" })!, /\$ref/);
  assert.match(
    parameterSchemaProblem({ type: "object", properties: {}, required: ["item"] })!,
    /"item" is required but not among the properties/,
  );
  assert.match(
    parameterSchemaProblem({ type: "object", properties: { a: { pattern: "(" } } })!,
    /regular expression/,
  );
  let deep: Record<string, unknown> = { type: "object" };
  for (let i = 0; i < 10; i++) deep = { type: "object", properties: { x: deep } };
  assert.match(parameterSchemaProblem(deep)!, /deeper/);
});

Deno.test("checkProposedActions() keeps valid calls with fresh ids and drops the rest with reasons", () => {
  let n = 0;
  const { actions, dropped } = checkProposedActions(
    [GIVE],
    [
      { name: "give_item", arguments: '{"item":"lantern","count":2}' },
      { name: "give_item", arguments: "" },
      { name: "give_item", arguments: '{"item":"rope","colour":"red"}' },
      { name: "give_item", arguments: "[1]" },
      { name: "dance", arguments: "{}" },
      { name: "give_item", arguments: '{"item":"a"}' },
      { name: "give_item", arguments: '{"item":"b"}' },
      { name: "give_item", arguments: '{"item":"c"}' },
    ],
    { ids: () => `act_${n++}` },
  );
  assert.deepEqual(actions, [
    { id: "act_0", name: "give_item", arguments: { item: "lantern", count: 2 } },
    { id: "act_1", name: "give_item", arguments: { item: "a" } },
    { id: "act_2", name: "give_item", arguments: { item: "b" } },
  ]);
  assert.deepEqual(dropped.map((d) => d.reason.slice(0, 40)), [
    "its arguments do not match the schema at",
    "its arguments do not match the schema: U",
    "its arguments are not a JSON object",
    'unknown action "dance": no action of tha',
    "more than 3 actions in one turn",
  ]);
});

Deno.test("goals: status at a time, the active ones by priority, done ones stay done when set again", () => {
  const stored = goalsToStore([
    { id: "a", description: "fix the roof", priority: 2 },
    { id: "b", description: "find the cat", priority: 5, until: "2023-02-13T12:00:00" },
    { id: "c", description: "bake bread", priority: 2 },
  ], []);
  assert.deepEqual(
    activeGoals(stored, "2023-02-13T08:00:00").map((g) => g.id),
    ["b", "a", "c"],
  );
  assert.equal(goalStatus(stored[1], "2023-02-13T12:00:01"), "expired");
  const done = stored.map((g) =>
    g.id === "a" ? { ...g, done: true, doneAt: "2023-02-13T09:00:00" } : g
  );
  const again = goalsToStore([{ id: "a", description: "fix the roof", priority: 3 }], done);
  assert.deepEqual(again, [{
    id: "a",
    description: "fix the roof",
    priority: 3,
    done: true,
    doneAt: "2023-02-13T09:00:00",
  }]);
  assert.throws(
    () =>
      goalsToStore([{ id: "a", description: "x", priority: 1 }, {
        id: "a",
        description: "y",
        priority: 1,
      }], []),
    (err: { details?: { index?: number } }) => err.details?.index === 1,
  );
});

Deno.test("triggerText() puts the params after the description, in words", () => {
  assert.equal(triggerText({ description: "A storm breaks" }), "A storm breaks");
  assert.equal(
    triggerText({ description: "A storm breaks", params: { severity: "high", wind: 9 } }),
    "A storm breaks (severity: high; wind: 9)",
  );
  assert.throws(() => triggerText({ description: "x".repeat(2001) }), /2000 characters/);
});
