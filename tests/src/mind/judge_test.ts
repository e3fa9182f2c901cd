import assert from "node:assert/strict";
import { judgeScore } from "../../../src/mind/judge.ts";
import { ModelUnavailableError, type Prompt } from "../../../src/domain/mod.ts";
import type { Completion, LanguageModel } from "../../../src/ports/mod.ts";

/** A judge that fails its schema `failures` times, then answers 7. */
function flakyJudge(failures: number): LanguageModel & { calls: number } {
  return {
    info: { mode: "openai", main: "flaky", fast: "flaky" },
    calls: 0,
    complete<T>(prompt: Prompt<T>): Promise<Completion<T>> {
      this.calls++;
      if (this.calls <= failures) {
        return Promise.reject(new ModelUnavailableError("model_invalid_output", "bad JSON"));
      }
      const value = prompt.schema.parse({ score: 7, reason: "fine" });
      return Promise.resolve({
        value,
        usage: { calls: 1, promptTokens: 10, completionTokens: 2 },
        model: "flaky",
      });
    },
  };
}

const input = {
  metric: "ME-HLE" as const,
  character: { name: "A", profile: "" },
  probe: "Hi",
  answer: "Hello",
};

Deno.test("a judge answer failing its schema is asked again once", async () => {
  const judge = flakyJudge(1);
  const { value } = await judgeScore({ judge }, input, { operation: "judge" });
  assert.equal(value.score, 7);
  assert.equal(judge.calls, 2);
});

Deno.test("a judge answer failing its schema twice is model_invalid_output naming the metric", async () => {
  const judge = flakyJudge(2);
  const err = await judgeScore({ judge }, input, { operation: "judge" }).catch((e) => e);
  assert.ok(err instanceof ModelUnavailableError);
  assert.equal(err.code, "model_invalid_output");
  assert.match(err.message, /Cannot score ME-HLE/);
  assert.deepEqual(err.details, { metric: "ME-HLE", judge: "flaky" });
  assert.equal(judge.calls, 2);
});
