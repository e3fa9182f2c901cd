/** @module The judge ranks several conditions' answers to each question, seeing them only by opaque ids (Generative Agents §6.1). */
import { addUsage, type Attribution, type Usage } from "../../domain/mod.ts";
import type { JudgeDeps } from "../../ports/mod.ts";
import { judgeRanking } from "../../mind/mod.ts";
import { mapBounded } from "../engine/mod.ts";

/** One question and its answers: an opaque id the judge sees, the condition it hides. */
export interface RankedQuestion {
  question: string;
  answers: { id: string; condition: string; text: string }[];
}

/** Judge calls at once. */
const CONCURRENCY = 4;

/**
 * Each question's conditions, most believable first, as the judge ranked their answers (the
 * ids mapped back to conditions), and the judge's usage.
 * @throws `model_*` (502 naming "believability" after a re-ask).
 */
export async function judgeAnswers(
  deps: JudgeDeps,
  { character, questions }: { character: string; questions: readonly RankedQuestion[] },
  attribution: Attribution,
): Promise<{ rankings: string[][]; usage: Usage }> {
  const usages: Usage[] = [];
  const rankings = await mapBounded(questions, CONCURRENCY, async (q) => {
    const { value, usage } = await judgeRanking(deps, {
      character,
      question: q.question,
      answers: q.answers.map(({ id, text }) => ({ id, text })),
    }, attribution);
    usages.push(usage);
    const byId = new Map(q.answers.map((a) => [a.id, a.condition]));
    return value.ranking.map((id) => byId.get(id)!);
  });
  return { rankings, usage: addUsage(...usages) };
}
