import assert from "node:assert/strict";
import { loadConfig } from "../../lib/config.ts";
import { judgeModel } from "../../lib/judge_model.ts";
import { ConfigError } from "../../src/domain/errors.ts";
import { judgeLabel } from "../../src/ports/judge.ts";

function problems(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  assert.fail("expected a ConfigError");
}

Deno.test("no SIMULACRA_JUDGE_MODEL: the offline judge, labelled as rule-based", () => {
  const config = loadConfig({ OPENAI_API_KEY: "sk-x" });
  assert.deepEqual(config.judge, { mode: "offline" });
  const label = judgeLabel(judgeModel(config.judge));
  assert.equal(label.offline, true);
  assert.equal(label.model, "offline-judge");
  assert.match(label.label, /offline rule-based judge/);
});

Deno.test("SIMULACRA_JUDGE_MODEL uses the main endpoint and key unless the judge's own are set", () => {
  assert.deepEqual(
    loadConfig({ OPENAI_API_KEY: "sk-main", SIMULACRA_JUDGE_MODEL: "gpt-4.1-mini" }).judge,
    { mode: "openai", apiKey: "sk-main", baseURL: undefined, model: "gpt-4.1-mini" },
  );
  assert.deepEqual(
    loadConfig({
      SIMULACRA_JUDGE_MODEL: "qwen3:8b",
      SIMULACRA_JUDGE_BASE_URL: "http://localhost:11434/v1",
    }).judge,
    {
      mode: "openai",
      apiKey: "not-needed",
      baseURL: "http://localhost:11434/v1",
      model: "qwen3:8b",
    },
  );
  const both = loadConfig({
    OPENAI_BASE_URL: "http://a.example/v1",
    SIMULACRA_MODEL: "m",
    SIMULACRA_JUDGE_MODEL: "j",
    SIMULACRA_JUDGE_BASE_URL: "http://b.example/v1",
    SIMULACRA_JUDGE_API_KEY: "sk-judge",
  });
  assert.deepEqual(both.judge, {
    mode: "openai",
    apiKey: "sk-judge",
    baseURL: "http://b.example/v1",
    model: "j",
  });
  assert.equal(both.model.mode, "openai");
  const label = judgeLabel(judgeModel(both.judge));
  assert.deepEqual(label, { model: "j", offline: false, label: "judge model j" });
});

Deno.test("a judge endpoint without a model, or a model without an endpoint, is refused", () => {
  assert.match(
    problems({ SIMULACRA_JUDGE_BASE_URL: "http://b.example/v1" }),
    /SIMULACRA_JUDGE_BASE_URL is set but SIMULACRA_JUDGE_MODEL is not/,
  );
  assert.match(
    problems({ SIMULACRA_JUDGE_MODEL: "j" }),
    /SIMULACRA_JUDGE_MODEL is set but no endpoint/,
  );
  assert.match(
    problems({ SIMULACRA_JUDGE_BASE_URL: "not a url", SIMULACRA_JUDGE_MODEL: "j" }),
    /SIMULACRA_JUDGE_BASE_URL/,
  );
});
