/** @module Port: the judge model evaluations ask (SIMULACRA_JUDGE_MODEL, or the offline rule-based judge). */
import type { LanguageModel } from "./language_model.ts";

/**
 * What evaluations need besides the agent's own ports: a language model that judges answers.
 * Its calls are counted apart from the agent's (the evaluation reports both).
 */
export interface JudgeDeps {
  judge: LanguageModel;
}

/** How an evaluation's output names its judge. */
export interface JudgeLabel {
  /** The judge model's name ("offline-judge" for the rule-based one). */
  model: string;
  /** True for the offline rule-based judge: its scores are heuristics, not a model's opinion. */
  offline: boolean;
  /** A human-readable label to print beside every number the judge produced. */
  label: string;
}

/** The label of a judge, from its model info. */
export function judgeLabel(judge: LanguageModel): JudgeLabel {
  const offline = judge.info.mode === "offline";
  return {
    model: judge.info.main,
    offline,
    label: offline
      ? "offline rule-based judge (word overlap and markers, not a language model)"
      : `judge model ${judge.info.main}`,
  };
}
