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

Deno.test("reflectionInsights() asks once per question with evidence and answers null for one without", async () => {
  const { model, sent } = countingModel();
  const { deps, ctx } = await isabella(model);
  await using _ = deps;
  sent.length = 0;
  const { answers, usage } = await reflectionInsights(deps, ctx, {
    questions: ["What does Isabella care about?", "Who is Klaus?", "What is the party for?"],
    shown: [["Isabella bakes bread"], [], ["Isabella plans a party"]],
  });
  assert.equal(sent.length, 2);
  assert.ok(sent.every((s) => s.attribution.operation === "reflection.insights"));
  assert.equal(answers.length, 3);
  assert.equal(answers[1], null);
  assert.ok(answers[0] !== null && answers[2] !== null);
  assert.equal(usage.calls, 2);
});

Deno.test("reflectionInsights() lets every call finish before it throws the first failure", async () => {
  let finished = 0;
  const { model: offline } = countingModel();
  const failing: LanguageModel = {
    info: offline.info,
    complete(prompt, attribution) {
      if (JSON.stringify(prompt.messages).includes("Klaus")) {
        return Promise.reject(new ModelUnavailableError("model_unavailable", "down"));
      }
      return offline.complete(prompt, attribution).finally(() => finished++);
    },
  };
  const { deps, ctx } = await isabella(failing);
  await using _ = deps;
  finished = 0;
  await assert.rejects(
    reflectionInsights(deps, ctx, {
      questions: ["Who is Klaus?", "What is the party for?"],
      shown: [["Klaus studies"], ["Isabella plans a party"]],
    }),
    ModelUnavailableError,
  );
  assert.equal(finished, 1, "the other call settled before the failure was thrown");
});
