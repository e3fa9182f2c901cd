/** @module The offline judge: a rule-based stand-in for SIMULACRA_JUDGE_MODEL, labelled as such wherever its numbers appear. */
import type { UsageSink } from "../../src/domain/mod.ts";
import type { ModelInfo } from "../../src/ports/mod.ts";
import { OfflineLanguageModel } from "./offline_language_model.ts";
import { answerJudgeKnowledge } from "./judge/knowledge.ts";
import { answerJudgeRanking } from "./judge/ranking.ts";
import { answerJudgeScore } from "./judge/score.ts";

/** The model name the offline judge reports; evaluations print it as "offline rule-based judge". */
export const OFFLINE_JUDGE = "offline-judge";

/**
 * Judges MREval metrics, believability rankings and interview answers by rules over the texts
 * (word overlap, uncertainty markers, naturalness checks): deterministic and free, so the
 * evaluation pipeline runs without a key. Its scores are heuristics, not a model's opinion, and
 * every output that uses them says so.
 */
export class OfflineJudge extends OfflineLanguageModel {
  override readonly info: ModelInfo = { mode: "offline", main: OFFLINE_JUDGE, fast: OFFLINE_JUDGE };

  constructor(options: { onUsage?: UsageSink } = {}) {
    super({
      responders: {
        judge_score: answerJudgeScore,
        judge_ranking: answerJudgeRanking,
        judge_knowledge: answerJudgeKnowledge,
      },
      onUsage: options.onUsage,
    });
  }
}
