/** @module Offline responder for the "reflection_insights" prompt: insights that paraphrase related memories and cite their numbers. */
import type {
  QuestionInsights,
  ReflectionInsightsInput,
  ReflectionInsightsOutput,
} from "../../../src/domain/mod.ts";
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

/** A name: capitalised words ("Camille Moreau", "Lucia"). */
const NAME = /^\p{Lu}[\p{L}'’-]*(?: \p{Lu}[\p{L}'’-]*)*$/u;

/** The names of a list ("A, B and C"), or null when it is not a list of names. */
function namesIn(text: string): string[] | null {
  const names = text.split(/,\s+(?:and\s+)?|\s+and\s+/).map((n) => n.trim());
  return names.length > 0 && names.every((n) => NAME.test(n)) ? names : null;
}

/** Names as one list, each once: "A", "A, B and C". */
function listOf(names: readonly string[]): string {
  const once = [...new Set(names)];
  return once.length < 2 ? once.join("") : `${once.slice(0, -1).join(", ")} and ${once.at(-1)}`;
}

/**
 * Two predicates that end in lists of people after the same words ("has been talking with A"
 * and "has been talking with B and A") as one, each name once; else null.
 */
function joinNameLists(a: string, b: string): string | null {
  const la = /^(.*?\b(?:with|to|and|sees|met|meets))\s+(.+)$/u.exec(a);
  const lb = /^(.*?\b(?:with|to|and|sees|met|meets))\s+(.+)$/u.exec(b);
  if (!la || !lb || la[1] !== lb[1]) return null;
  const [na, nb] = [namesIn(la[2]), namesIn(lb[2])];
  return na && nb ? `${la[1]} ${listOf([...na, ...nb])}` : null;
}

/**
 * Two predicates as one: lists of people after the same words merged, each name once ("has
 * been talking with A and B"); one already said by the other said once; a shared opening said
 * once when what follows is short; a place named again said as "there"; else joined with ", and".
 */
function joinPredicates(predicates: readonly string[]): string {
  if (predicates.length < 2) return predicates[0] ?? "";
  const [a, b] = predicates;
  const names = joinNameLists(a, b);
  if (names !== null) return names;
  if (a.includes(b)) return a;
  if (b.includes(a)) return b;
  const wa = a.split(" ");
  const wb = b.split(" ");
  let head = 0;
  while (head < Math.min(wa.length, wb.length) - 1 && wa[head] === wb[head]) head++;
  // Merged predicates ("… and …") merged again garble: only plain ones share an opening.
  if (head >= 2 && !/ and /.test(a) && !/ and /.test(b)) {
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
function answerQuestion(
  { agentName, question, memories }: { agentName: string; question: string; memories: string[] },
): QuestionInsights {
  const asked = new Set(contentStems(question));
  const stems = memories.map((m) => new Set(contentStems(m)));
  const order = memories
    .map((_, i) => i)
    .filter((i) => memories[i].trim() !== "")
    .sort((a, b) => overlap(stems[b], asked) - overlap(stems[a], asked) || a - b);
  const used = new Set<number>();
  const said = new Set<string>();
  const insights: QuestionInsights["insights"] = [];
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

/**
 * Answers each question from the memories recalled for it alone, as {@linkcode answerQuestion}
 * does, its citations turned back into numbers of the whole list.
 */
export function answerReflectionInsights(input: unknown): ReflectionInsightsOutput {
  const { agentName, questions, memories, recalled } = input as ReflectionInsightsInput;
  return {
    answers: questions.map((question, q) => {
      const own = recalled[q] ?? [];
      const answer = answerQuestion({
        agentName,
        question,
        memories: own.map((n) => memories[n - 1] ?? ""),
      });
      return {
        insights: answer.insights.map(({ insight, evidence }) => ({
          insight,
          evidence: evidence.map((n) => own[n - 1]),
        })),
      };
    }),
  };
}
