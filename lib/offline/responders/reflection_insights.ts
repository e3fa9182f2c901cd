/** @module Offline responder for the "reflection_insights" prompt: insights that combine related memories and cite their numbers. */
import type {
  ReflectionInsightsInput,
  ReflectionInsightsOutput,
} from "../../../src/prompts/reflection_insights.ts";
import { contentStems } from "../_text.ts";

/** Insights per question offline: fewer than the paper's 5, to keep offline streams small. */
const INSIGHTS = 3;

function clause(text: string): string {
  return text.trim().replace(/[.;:!?\s]+$/, "").slice(0, 200);
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const s of a) if (b.has(s)) n++;
  return n;
}

/**
 * Answers with up to three insights. Memories are ranked by how many content stems they share
 * with the question (ties: list order); each insight joins the best unused memory with the
 * unused one most similar to it ("A, and B.", in alphabetical order so that a pair found for two
 * questions reads the same) and cites both numbers, or restates a memory
 * alone when nothing else is left. Every number cited is a real position in the list.
 */
export function answerReflectionInsights(input: unknown): ReflectionInsightsOutput {
  const { question, memories } = input as ReflectionInsightsInput;
  const asked = new Set(contentStems(question));
  const stems = memories.map((m) => new Set(contentStems(m)));
  const order = memories
    .map((_, i) => i)
    .sort((a, b) => overlap(stems[b], asked) - overlap(stems[a], asked) || a - b);
  const used = new Set<number>();
  const insights: ReflectionInsightsOutput["insights"] = [];
  for (const i of order) {
    if (insights.length === INSIGHTS) break;
    if (used.has(i) || clause(memories[i]) === "") continue;
    used.add(i);
    let partner = -1;
    for (const j of order) {
      if (used.has(j) || clause(memories[j]) === "") continue;
      if (partner === -1 || overlap(stems[i], stems[j]) > overlap(stems[i], stems[partner])) {
        partner = j;
      }
    }
    if (partner === -1) {
      insights.push({ insight: `${clause(memories[i])}.`, evidence: [i + 1] });
      continue;
    }
    used.add(partner);
    // Alphabetical order, so the same pair found for two questions reads the same.
    const [a, b] = [i, partner].sort((x, y) =>
      clause(memories[x]).localeCompare(clause(memories[y]))
    );
    insights.push({
      insight: `${clause(memories[a])}, and ${clause(memories[b])}.`,
      evidence: [a + 1, b + 1],
    });
  }
  return { insights };
}
