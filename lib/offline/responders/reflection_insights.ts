/** @module Offline responder for the "reflection_insights" prompt: insights that paraphrase related memories and cite their numbers. */
import type { ReflectionInsightsInput, ReflectionInsightsOutput } from "../../../src/domain/mod.ts";
import { contentStems } from "../text.ts";
import { predicateOf } from "./_gist.ts";
import { repeatsPhrase } from "./_speech.ts";

/** Insights per question offline: fewer than the paper's 5, to keep offline streams small. */
const INSIGHTS = 3;

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const s of a) if (b.has(s)) n++;
  return n;
}

/**
 * Two predicates as one: a shared opening said once ("has been talking with A and B"), a place
 * named again said as "there"; else joined with ", and".
 */
function joinPredicates(predicates: readonly string[]): string {
  if (predicates.length < 2) return predicates[0] ?? "";
  const [a, b] = predicates;
  const wa = a.split(" ");
  const wb = b.split(" ");
  let head = 0;
  while (head < Math.min(wa.length, wb.length) - 1 && wa[head] === wb[head]) head++;
  if (head >= 2) {
    const ra = wa.slice(head);
    const rb = wb.slice(head);
    let tail = 0;
    while (
      tail < Math.min(ra.length, rb.length) - 1 &&
      ra[ra.length - 1 - tail] === rb[rb.length - 1 - tail]
    ) tail++;
    const start = wa.slice(0, head).join(" ");
    return tail >= 2
      ? `${start} ${ra.slice(0, -tail).join(" ")} and ${rb.slice(0, -tail).join(" ")} ${
        ra.slice(-tail).join(" ")
      }`
      : `${a} and ${rb.join(" ")}`;
  }
  const place = /\bat ((?:\p{Lu}[\p{L}'’]*\s?)+(?:(?:and|of) (?:\p{Lu}[\p{L}'’]*\s?)+)?)/u.exec(b);
  const again = place && a.includes(place[0].trim()) ? b.replace(place[0].trim(), "there") : b;
  return `${a}, and ${again}`;
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
    let insight = `${agentName} ${joinPredicates(predicates)}.`.slice(0, 500);
    if (repeatsPhrase(insight) && cited.length > 1) {
      // The two do not combine into a sentence: the insight rests on the first alone.
      insight = `${agentName} ${predicateOf(memories[i], agentName)}.`.slice(0, 500);
      cited.splice(0, cited.length, i);
    }
    if (said.has(insight)) continue;
    said.add(insight);
    insights.push({ insight, evidence: cited.map((n) => n + 1) });
  }
  return { insights };
}
