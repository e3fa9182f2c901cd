/** @module Builds the judge evaluations ask from its configuration: the offline judge, or an OpenAI-compatible model. */
import type { LanguageModel } from "../src/ports/mod.ts";
import type { JudgeConfig } from "./config.ts";
import { OfflineJudge } from "./offline/offline_judge.ts";
import { OpenAiLanguageModel } from "./openai/openai_language_model.ts";

/**
 * The judge model. Its usage is not written to the worlds' ledgers or budgets: evaluations report
 * it apart from the agent's.
 */
export function judgeModel(config: JudgeConfig): LanguageModel {
  if (config.mode === "offline") return new OfflineJudge();
  return new OpenAiLanguageModel({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    mainModel: config.model,
    fastModel: config.model,
  });
}
