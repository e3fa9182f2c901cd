/** @module The offline judge's reading of an interview answer: fact words present, attendance said, candidates named. */
import type { JudgeKnowledgeInput, JudgeKnowledgeOutput } from "../../../src/domain/mod.ts";
import { coverage, uncertain } from "./_signals.ts";

const NOT_THERE =
  /\b(?:wasn't|was not|didn't go|did not go|missed|couldn't make|could not make|never went|stayed home)\b/i;
const THERE =
  /\b(?:i was (?:at|there|in)|i'm at|i am at|i went|i attended|i made it|i stopped by|i came|i joined|we were there)\b/i;

/** Minutes since midnight of "HH:MM". */
const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether the answer gives a time span ("17:46–19:00") that overlaps the event's. */
function during(answer: string, t: { from: string; to: string }): boolean {
  const [from, to] = [minutes(t.from.slice(11, 16)), minutes(t.to.slice(11, 16))];
  return [...answer.matchAll(/\b(\d\d:\d\d)\s*[–-]\s*(\d\d:\d\d)\b/g)].some((m) =>
    minutes(m[1]) < to && minutes(m[2]) > from
  );
}

function denies(answer: string, name: string): boolean {
  const first = name.split(/\s+/)[0];
  return new RegExp(`\\b(?:don't|do not|never) (?:know|met|heard of)[^.]{0,40}\\b${first}\\b`, "i")
    .test(answer.replace(/[’]/g, "'"));
}

/** Reads the answer by rule; the reason says it is the offline judge. */
export function answerJudgeKnowledge(input: unknown): JudgeKnowledgeOutput {
  const i = input as JudgeKnowledgeInput;
  const answer = i.answer.replace(/^[^:]{1,60}:\s/, "");
  const t = i.target;
  if (t.kind === "fact") {
    const share = coverage(answer, t.fact);
    const knows = share >= 0.5 && !uncertain(answer);
    return {
      knows,
      names: [],
      reason: `Offline rule-based judge: ${
        Math.round(share * 100)
      }% of the fact's words in the answer.`,
    };
  }
  if (t.kind === "event") {
    const place = coverage(answer, t.place) >= 0.5;
    const knows = place && (THERE.test(answer) || during(answer, t)) && !NOT_THERE.test(answer);
    return {
      knows,
      names: [],
      reason: `Offline rule-based judge: ${
        knows ? "says it was at" : "does not say it was at"
      } ${t.place}.`,
    };
  }
  const names = t.candidates.filter((name) => {
    const first = name.split(/\s+/)[0];
    return new RegExp(`\\b${first}\\b`, "i").test(answer) && !denies(answer, name);
  });
  return {
    knows: names.length > 0,
    names,
    reason: `Offline rule-based judge: ${names.length} candidates named as known.`,
  };
}
