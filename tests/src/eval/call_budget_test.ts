/**
 * @module Issue 25's call budget, pinned: the seeded smallville day with the offline model (the
 * same prompts a real model gets; its answers decide as the seeded week of BENCHMARKS.md does).
 */
import assert from "node:assert/strict";
import { OfflineLanguageModel } from "../../../lib/offline/offline_language_model.ts";
import { simulateTown } from "../../../src/eval/simulate_town.ts";
import { tickWorld } from "../../../src/app/simulation/tick_world.ts";
import { countingModel, makeTestDeps } from "../../_helpers/test_deps.ts";
import { TOWNS } from "../../../towns/mod.ts";

Deno.test("the seeded town's first day costs at most 40 calls and 35,000 tokens per agent", async () => {
  await using deps = await makeTestDeps();
  const { model, kinds } = countingModel(
    new OfflineLanguageModel({ onUsage: (r) => deps.storage.usage.add(r) }),
  );
  deps.model = model;
  const { summary } = await simulateTown(deps, {
    template: "smallville",
    catalog: TOWNS,
    hours: 24,
    seed: 11,
    tick: (d, w, o) => tickWorld(d, w, o),
    wallClock: () => 0,
  });
  assert.equal(summary.stepErrors, 0);
  // Day one pays for every agent's first summary and day plan: the week averages less (33.2
  // calls and 32,000 tokens at the time of writing; main before issue 25: 51.4 and 40,400 here).
  assert.ok(summary.callsPerAgentDay <= 40, `${summary.callsPerAgentDay} calls per agent-day`);
  assert.ok(summary.tokensPerAgentDay <= 35_000, `${summary.tokensPerAgentDay} tokens`);
  const calls = (op: string) => summary.byOperation[op]?.calls ?? 0;
  // An item's hour chunks and their actions come from one call; no call per level.
  assert.equal(calls("plan.hour"), 0);
  assert.equal(kinds.filter((k) => k === "hour_plan").length, 0);
  assert.ok(calls("plan.decompose") > 0);
  // One insights call per reflection, whatever the number of questions.
  assert.equal(calls("reflection.insights"), calls("reflection.questions"));
});
