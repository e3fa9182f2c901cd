import assert from "node:assert/strict";
import type { Agent } from "../../../src/domain/agent/agent.ts";
import { ModelUnavailableError } from "../../../src/domain/errors.ts";
import type { LanguageModel } from "../../../src/ports/language_model.ts";
import { createAgent } from "../../../src/app/lifecycle/create_agent.ts";
import { reflectionInsights } from "../../../src/mind/reflection_insights.ts";
import { countingModel, makeTestDeps } from "../../_helpers/test_deps.ts";
import { coreWorld } from "../../_helpers/core_world.ts";

async function isabella(model: LanguageModel) {
  const deps = await makeTestDeps({ model });
  const { world, id } = await coreWorld(deps, { name: "Smallville" });
  const { agent } = await createAgent(deps, id, {
    id: "isabella" as Agent["id"],
    name: "Isabella Rodriguez",
    description: "Isabella Rodriguez runs Hobbs Cafe",
  });
  return { deps, ctx: { world, agent } };
}

Deno.test("reflectionInsights() asks for every question in one call, citing the whole list", async () => {
  const { model, sent } = countingModel();
  const { deps, ctx } = await isabella(model);
  await using _ = deps;
  sent.length = 0;
  const { answers, usage } = await reflectionInsights(deps, ctx, {
    questions: ["What does Isabella care about?", "Who is Klaus?", "What is the party for?"],
    memories: ["Isabella bakes bread", "Isabella plans a party"],
    recalled: [[1], [], [2, 1]],
  });
  assert.equal(sent.length, 1);
  assert.equal(sent[0].attribution.operation, "reflection.insights");
  assert.equal(answers.length, 3);
  assert.deepEqual(answers[1], { insights: [] }, "nothing recalled: nothing to say");
  assert.ok(answers[2]!.insights.length > 0);
  assert.ok(answers[2]!.insights.every((i) => i.evidence.every((n) => n === 1 || n === 2)));
  assert.equal(usage.calls, 1);
});

Deno.test("reflectionInsights() makes no call when nothing was recalled", async () => {
  const { model, sent } = countingModel();
  const { deps, ctx } = await isabella(model);
  await using _ = deps;
  sent.length = 0;
  const { answers, usage } = await reflectionInsights(deps, ctx, {
    questions: ["Who is Klaus?"],
    memories: [],
    recalled: [[]],
  });
  assert.equal(sent.length, 0);
  assert.deepEqual(answers, [null]);
  assert.equal(usage.calls, 0);
});

Deno.test("reflectionInsights() passes a model failure on", async () => {
  const { model: offline } = countingModel();
  const failing: LanguageModel = {
    info: offline.info,
    complete: () => Promise.reject(new ModelUnavailableError("model_unavailable", "down")),
  };
  const { deps, ctx } = await isabella(failing);
  await using _ = deps;
  await assert.rejects(
    reflectionInsights(deps, ctx, {
      questions: ["Who is Klaus?"],
      memories: ["Klaus studies"],
      recalled: [[1]],
    }),
    ModelUnavailableError,
  );
});
