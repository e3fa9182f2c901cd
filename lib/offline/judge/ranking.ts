/** @module The offline judge's believability ranking: specific, natural answers above vague or uncertain ones. */
import type { JudgeRankingInput, JudgeRankingOutput } from "../../../src/domain/mod.ts";
import { naturalness, stemSet, uncertain } from "./_signals.ts";

/** A believability estimate: naturalness, how much it says, and whether it knows. */
function believability(text: string): number {
  const specific = Math.min(1, stemSet(text).size / 20);
  const names = (text.match(/\b\p{Lu}\p{Ll}+/gu) ?? []).length;
  return naturalness(text) + specific + Math.min(0.5, names / 10) - (uncertain(text) ? 0.6 : 0);
}

/** Ranks by {@linkcode believability}; ties keep the order given. */
export function answerJudgeRanking(input: unknown): JudgeRankingOutput {
  const i = input as JudgeRankingInput;
  const ranked = i.answers
    .map((a, index) => ({ id: a.id, index, score: believability(a.text) }))
    .sort((x, y) => y.score - x.score || x.index - y.index);
  return {
    ranking: ranked.map((r) => r.id),
    reason: "Offline rule-based judge: specific, natural and knowing answers first.",
  };
}
