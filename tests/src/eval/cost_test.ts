import assert from "node:assert/strict";
import { perAgentDay } from "../../../src/eval/cost.ts";

Deno.test("perAgentDay() scales usage to one agent and 24 game hours", () => {
  const usage = { calls: 300, promptTokens: 200_000, completionTokens: 100_000 };
  assert.deepEqual(perAgentDay(usage, 25, 12), { calls: 24, tokens: 24_000 });
  assert.deepEqual(perAgentDay(usage, 10, 48), { calls: 15, tokens: 15_000 });
  assert.deepEqual(perAgentDay(usage, 0, 24), { calls: 0, tokens: 0 });
  assert.deepEqual(perAgentDay(usage, 5, 0), { calls: 0, tokens: 0 });
});
