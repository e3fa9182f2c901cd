/** @module Offline responder for the "agent_summary" prompt: short sentences from the recalled memories. */
import type { AgentSummaryInput, AgentSummaryOutput } from "../../../src/domain/mod.ts";
import { predicateOf } from "./_gist.ts";
import { clip, repeatsPhrase } from "./_speech.ts";

const WORK =
  /\b(?:works?|working|owns?|runs?|studies|studying|student|teach(?:es|ing)?|employ\w*|job|clerk|professor|barista|baker|pharmacist|retired|writes?|journalist|carpenter)\b/i;
const WORRIED = /\b(?:worr\w*|upset|anxious|stress\w*|afraid|rent went up|struggl\w*)\b/i;
const LOOKING_FORWARD =
  /\b(?:party|festival|celebrat\w*|excit\w*|looking forward|wedding|campaign|election)\b/i;

/** Sentences of the memories that are facts (not plans, talk or sightings), each once. */
function sentences(memories: readonly string[], name: string, max: number): string[] {
  const out: string[] = [];
  for (const memory of memories) {
    const predicate = predicateOf(memory, name);
    if (/^(?:spends time|has been talking|heard|notices|often sees)\b/.test(predicate)) continue;
    const sentence = predicate.startsWith("remembers that ")
      ? clip(predicate.slice("remembers that ".length), 200)
      : `${name} ${predicate}`;
    const text = `${sentence.charAt(0).toUpperCase()}${sentence.slice(1)}.`;
    // A reflection restating a fact opens like it: keep the first.
    const opening = text.split(" ").slice(0, 4).join(" ");
    if (!out.some((o) => o.startsWith(opening)) && !repeatsPhrase(text)) out.push(text);
    if (out.length === max) break;
  }
  return out;
}

/**
 * Answers from the recalled memories of each aspect: the character from up to two facts; the
 * occupation from a fact about work, else from what its plans keep it busy with; the feeling
 * from worried or eager words in any memory, else a settled one. Says "not known yet" when
 * nothing is recalled.
 */
export function answerAgentSummary(input: unknown): AgentSummaryOutput {
  const i = input as AgentSummaryInput;
  const name = i.agentName;
  const core = sentences(i.core, name, 2);
  const work = sentences(i.occupation.filter((m) => WORK.test(m)), name, 1);
  const busy = i.occupation.map((m) => predicateOf(m, name)).find((p) =>
    p.startsWith("spends time")
  );
  const all = [...i.core, ...i.occupation, ...i.feeling];
  const worry = i.feeling.find((m) => WORRIED.test(m)) ?? all.find((m) => WORRIED.test(m));
  const eager = all.find((m) => LOOKING_FORWARD.test(m));
  return {
    core: core.length > 0 ? core.join(" ") : `Little is known yet about ${name}'s character.`,
    occupation: work[0] ??
      (busy ? `${name} ${busy}.` : `${name}'s daily occupation is not known yet.`),
    feeling: all.length === 0
      ? `How ${name} feels about recent progress is not known yet.`
      : worry !== undefined
      ? `${name} has something on their mind: ${clip(predicateOf(worry, name), 160)}.`
      : eager !== undefined
      ? `${name} is looking forward to what is coming up.`
      : `${name} feels settled in the daily routine.`,
  };
}
