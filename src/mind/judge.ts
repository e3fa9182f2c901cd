/** @module The judge's calls: score a metric, rank answers, read an answer for knowledge; one re-ask when an answer fails its schema. */
import {
  type Attribution,
  buildJudgeKnowledgePrompt,
  buildJudgeRankingPrompt,
  buildJudgeScorePrompt,
  type JudgeKnowledgeInput,
  type JudgeKnowledgeOutput,
  type JudgeRankingInput,
  type JudgeRankingOutput,
  type JudgeScoreInput,
  type JudgeScoreOutput,
  ModelUnavailableError,
  type Usage,
} from "../domain/mod.ts";
import type { JudgeDeps, Prompt } from "../ports/mod.ts";

/** A judge's answer and what it cost (the judge's own usage, never the agent's). */
export interface Judged<T> {
  value: T;
  usage: Usage;
}

function invalidOutput(err: unknown): boolean {
  return err instanceof ModelUnavailableError && err.code === "model_invalid_output";
}

/**
 * Asks the judge; an answer failing its schema (after the client's own repair) is asked again
 * once, then reported as `model_invalid_output` (502) naming `subject`, the metric or measure.
 */
async function askJudge<T>(
  deps: JudgeDeps,
  prompt: Prompt<T>,
  { attribution, subject }: { attribution: Attribution; subject: string },
): Promise<Judged<T>> {
  const model = deps.judge;
  for (let attempt = 0;; attempt++) {
    try {
      const { value, usage } = await model.complete(prompt, attribution);
      return { value, usage };
    } catch (err) {
      if (!invalidOutput(err)) throw err;
      if (attempt >= 1) {
        throw new ModelUnavailableError(
          "model_invalid_output",
          `Cannot score ${subject}: the judge model "${model.info.main}" answered twice with output that does not match the schema: retry, or use a judge model that follows JSON schemas`,
          { details: { metric: subject, judge: model.info.main }, cause: err },
        );
      }
    }
  }
}

/** Scores one metric of one probe, 1–10. @throws `model_*`. */
export function judgeScore(
  deps: JudgeDeps,
  input: JudgeScoreInput,
  attribution: Attribution,
): Promise<Judged<JudgeScoreOutput>> {
  return askJudge(deps, buildJudgeScorePrompt(input), { attribution, subject: input.metric });
}

/** Ranks answers to one question, most believable first. @throws `model_*`. */
export function judgeRanking(
  deps: JudgeDeps,
  input: JudgeRankingInput,
  attribution: Attribution,
): Promise<Judged<JudgeRankingOutput>> {
  return askJudge(deps, buildJudgeRankingPrompt(input), { attribution, subject: "believability" });
}

/** Reads an interview answer for a fact, an event or the people known. @throws `model_*`. */
export function judgeKnowledge(
  deps: JudgeDeps,
  input: JudgeKnowledgeInput,
  attribution: Attribution,
): Promise<Judged<JudgeKnowledgeOutput>> {
  const subject = input.target.kind === "fact"
    ? "diffusion"
    : input.target.kind === "event"
    ? "attendance"
    : "network_density";
  return askJudge(deps, buildJudgeKnowledgePrompt(input), { attribution, subject });
}
