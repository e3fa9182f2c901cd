/** @module The offline judge's rules for the eight MREval metrics: word overlap, uncertainty and naturalness, never a model. */
import type { JudgeScoreInput, JudgeScoreOutput } from "../../../src/domain/mod.ts";
import { coverage, naturalness, similarity, toScale, uncertain } from "./_signals.ts";

type Rule = (i: JudgeScoreInput) => { value: number; why: string };

const pct = (v: number) => `${Math.round(v * 100)}%`;

/** Each metric's rule, giving a 0–1 value and what it measured. */
const RULES: Record<JudgeScoreInput["metric"], Rule> = {
  "MA-SI": (i) => {
    const v = similarity(i.answer, i.comparison?.text ?? i.answer);
    return { value: Math.sqrt(v), why: `the two answers share ${pct(v)} of their content words` };
  },
  "MA-AF": (i) => {
    const v = coverage(i.answer, i.reference?.text ?? "");
    return { value: v, why: `the answer has ${pct(v)} of the reference's content words` };
  },
  "MS-FA": (i) => {
    const apart = 1 - similarity(i.answer, i.comparison?.text ?? "");
    const fit = coverage(i.answer, i.facet ?? "") > 0 ? 1 : 0.5;
    return {
      value: apart * fit,
      why: `the answers differ in ${pct(apart)} of their words; ${
        fit === 1 ? "the answer echoes" : "the answer does not echo"
      } the facet`,
    };
  },
  "MS-FU": (i) => {
    const gain = coverage(i.answer, i.facet ?? "") -
      coverage(i.comparison?.text ?? "", i.facet ?? "");
    const apart = 1 - similarity(i.answer, i.comparison?.text ?? "");
    return {
      value: 0.5 + gain + apart / 4,
      why: `facet words ${gain >= 0 ? "up" : "down"} by ${pct(Math.abs(gain))} with the facets`,
    };
  },
  "MB-AL": (i) => {
    const leak = i.reference ? coverage(i.answer, i.reference.text) : 0;
    const v = uncertain(i.answer) ? 1 - leak / 2 : 1 - leak;
    return { value: v, why: `${pct(leak)} of the forbidden answer's content words appear` };
  },
  "MB-CR": (i) => {
    const holds = uncertain(i.answer);
    return {
      value: holds ? 0.95 : 0.2,
      why: holds ? "the answer states its uncertainty" : "the answer claims to know",
    };
  },
  "ME-MAC": (i) => {
    const context = `${i.probe} ${i.reference?.text ?? ""}`;
    const v = coverage(context, i.answer);
    return {
      value: Math.min(1, 0.2 + v),
      why: `${pct(v)} of the answer's words come from the memories and probe`,
    };
  },
  "ME-HLE": (i) => {
    const v = naturalness(i.answer);
    return { value: v, why: `${pct(v)} of the naturalness checks pass` };
  },
};

/** Scores one metric from the prompt's input: `{score, reason}`, the reason labelled offline. */
export function answerJudgeScore(input: unknown): JudgeScoreOutput {
  const i = input as JudgeScoreInput;
  const { value, why } = RULES[i.metric](i);
  return { score: toScale(value), reason: `Offline rule-based judge: ${why}.` };
}
