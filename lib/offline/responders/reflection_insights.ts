/** @module Offline responder for the "reflection_insights" prompt: insights that paraphrase related memories and cite their numbers. */
import type {
  ReflectionInsightsInput,
  ReflectionInsightsOutput,
} from "../../../src/prompts/reflection_insights.ts";
import { contentStems } from "../_text.ts";
import { predicateOf } from "./_gist.ts";

/** Insights per question offline: fewer than the paper's 5, to keep offline streams small. */
const INSIGHTS = 3;

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const s of a) if (b.has(s)) n++;
  return n;
}

/**
 * Answers with up to three insights. Memories are ranked by how many content stems they share
 * with the question (ties: list order); each insight pairs the best unused memory with the
 * unused one most like it and says what both tell about the agent, in its own words ("Lucia
 * Ferreira has been talking with Sofia Marchetti, and spends time working at Marigold Cafe"),
 * citing both numbers; a memory left alone is paraphrased alone. Pairs saying the same thing
 * read as one. Every number cited is a real position in the list.
 */
export function answerReflectionInsights(input: unknown): ReflectionInsightsOutput {
  const { agentName, question, memories } = input as ReflectionInsightsInput;
  const asked = new Set(contentStems(question));
  const stems = memories.map((m) => new Set(contentStems(m)));
  const order = memories
    .map((_, i) => i)
    .filter((i) => memories[i].trim() !== "")
    .sort((a, b) => overlap(stems[b], asked) - overlap(stems[a], asked) || a - b);
  const used = new Set<number>();
  const said = new Set<string>();
  const insights: ReflectionInsightsOutput["insights"] = [];
  for (const i of order) {
    if (insights.length === INSIGHTS) break;
    if (used.has(i)) continue;
    used.add(i);
    let partner = -1;
    for (const j of order) {
      if (used.has(j)) continue;
      if (partner === -1 || overlap(stems[i], stems[j]) > overlap(stems[i], stems[partner])) {
        partner = j;
      }
    }
    if (partner !== -1) used.add(partner);
    const cited = partner === -1 ? [i] : [i, partner].sort((a, b) => a - b);
    const predicates = [...new Set(cited.map((n) => predicateOf(memories[n], agentName)))];
    const insight = `${agentName} ${predicates.join(", and ")}.`.slice(0, 500);
    if (said.has(insight)) continue;
    said.add(insight);
    insights.push({ insight, evidence: cited.map((n) => n + 1) });
  }
  return { insights };
}
