/** @module Offline responder for the "agent_summary" prompt: short sentences from the agent's identity, then what its recalled memories add. */
import type { AgentSummaryInput, AgentSummaryOutput } from "../../../src/domain/mod.ts";
import { predicateOf } from "./_gist.ts";
import { clip, firstClause, repeatsPhrase } from "./_speech.ts";
import { about, occupationIn } from "./_identity.ts";

const WORK =
  /\b(?:works?|working|owns?|runs?|studies|studying|student|teach(?:es|ing)?|employ\w*|job|clerk|professor|barista|baker|pharmacist|retired|writes?|journalist|carpenter)\b/i;
const WORRIED = /\b(?:worr\w*|upset|anxious|stress\w*|afraid|rent went up|struggl\w*)\b/i;
const LOOKING_FORWARD =
  /\b(?:party|festival|celebrat\w*|excit\w*|looking forward|wedding|campaign|election)\b/i;
/** A memory saying the occupation changed since. */
const CHANGED =
  /\b(?:now|new job|no longer|quit|quits|moved|started|has become|became|hired|fired|promoted)\b/i;

/** Longest predicate a summary sentence keeps, in characters: the profile goes with most prompts. */
const PREDICATE_CHARS = 140;

/**
 * A sentence of `name` doing `predicate`, its first clause only. A long clause, or any with
 * `brief`, loses its relative clause ("… who is proud of her latte art") unless that names
 * `keep` (the workplace: "a baker who starts before dawn in the kitchen of Marigold Cafe").
 */
function sentence(
  name: string,
  predicate: string,
  { brief = false, keep = null }: { brief?: boolean; keep?: string | null } = {},
): string {
  const clause = firstClause(predicate);
  const cut = clause.replace(/,? (?:who|which|where|whose) .*$/, "");
  const needed = keep !== null && !cut.includes(keep) && clause.includes(keep);
  const short = (clause.length <= PREDICATE_CHARS && !brief) || needed ? clause : cut;
  const said = clip(short, PREDICATE_CHARS);
  return said.endsWith("…") ? `${name} ${said}` : `${name} ${said}.`;
}

/** Sentences of the memories that are facts (not plans, talk or sightings), each once. */
function sentences(
  memories: readonly string[],
  { name, max, known }: { name: string; max: number; known: readonly string[] },
): string[] {
  const out: string[] = [];
  const said = [...known];
  for (const memory of memories) {
    const predicate = predicateOf(memory, name);
    if (/^(?:spends time|has been talking|heard|notices|often sees)\b/.test(predicate)) continue;
    const text = predicate.startsWith("remembers that ")
      ? `${clip(predicate.slice("remembers that ".length), 200)}.`
      : sentence(name, predicate);
    const capital = `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
    // A reflection restating a fact (or a seed restating the identity) opens like it: keep the first.
    const opening = capital.split(" ").slice(0, 4).join(" ").replace(/[.,]$/, "");
    if (said.some((o) => o.startsWith(opening)) || repeatsPhrase(capital)) continue;
    said.push(capital);
    out.push(capital);
    if (out.length === max) break;
  }
  return out;
}

/** A worry said as a sentence: the clause that holds it ("worries that he works too hard"). */
function worryOf(memory: string, name: string): string {
  const clauses = memory.split(/,\s+(?:and|but|so)\s+|;\s*|\.\s+|\s+and\s+(?=[a-z]+s\b)/);
  const clause = clauses.find((c) => WORRIED.test(c)) ?? memory;
  const own = about(clause, name) ?? (/^[a-z]/.test(clause) ? clause : null);
  return own !== null && WORRIED.test(own.split(" ").slice(0, 2).join(" "))
    ? `${name} ${clip(own, 160)}.`
    : `${name} has something on their mind: ${clip(predicateOf(clause, name), 160)}.`;
}

/**
 * Answers from the identity first and the recalled memories for what changed. The occupation is
 * a memory saying it changed ("now works at the library"), else the description's phrase about
 * work ("owns Marigold Cafe"), else the workplace, else a recalled fact about work or what its
 * plans keep it busy with. The character is the description's other phrases, what matters now
 * first (a party, a worry), and a recalled fact the identity does not say. The feeling comes from
 * worried or eager words, else a settled one. "Not known yet" only when nothing says anything.
 */
export function answerAgentSummary(input: unknown): AgentSummaryOutput {
  const i = input as AgentSummaryInput;
  const name = i.agentName;
  const phrases = i.identity?.description ?? [];
  const known = new Set(phrases.map((p) => p.toLowerCase()));
  const fresh = (list: readonly string[]) =>
    list.filter((m) => !known.has(m.trim().replace(/[.;]+$/, "").toLowerCase()));
  const own = phrases.map((p) => about(p, name)).filter((p): p is string => p !== null);
  const identitySentences = own.map((p) => sentence(name, p));

  const job = occupationIn(phrases, name);
  const workplace = i.identity?.workplace;
  const changed = sentences(
    fresh(i.occupation).filter((m) => WORK.test(m) && CHANGED.test(m)),
    { name, max: 1, known: [] },
  );
  const recalledWork = sentences(fresh(i.occupation).filter((m) => WORK.test(m)), {
    name,
    max: 1,
    known: [],
  });
  const busy = i.occupation.map((m) => predicateOf(m, name)).find((p) =>
    p.startsWith("spends time")
  );
  const occupation = changed[0] ??
    (job !== null ? sentence(name, job, { brief: true, keep: workplace ?? null }) : undefined) ??
    (workplace ? `${name} works at ${workplace}.` : undefined) ??
    recalledWork[0] ??
    (busy ? `${name} ${busy}.` : `${name}'s daily occupation is not known yet.`);

  // What is coming up (a party, a campaign) first, then the rest in the description's order; a
  // worry is the feeling's.
  const rest = own.filter((p) => p !== job && !WORRIED.test(firstClause(p)));
  const ranked = [
    ...rest.filter((p) => LOOKING_FORWARD.test(p)),
    ...rest.filter((p) => !LOOKING_FORWARD.test(p)),
  ];
  const added = sentences(fresh(i.core), {
    name,
    max: 1,
    known: [...identitySentences, occupation],
  });
  // One sentence from who the agent is, one from what changed: the core is in most prompts.
  const core = [...ranked.slice(0, 1).map((p) => sentence(name, p)), ...added];
  const background = i.identity?.background ? `${clip(i.identity.background, 200)}.` : null;
  if (core.length === 0 && background) core.push(background);

  const all = [...i.core, ...i.occupation, ...i.feeling, ...phrases];
  const worry = i.feeling.find((m) => WORRIED.test(m)) ?? all.find((m) => WORRIED.test(m));
  const eager = all.find((m) => LOOKING_FORWARD.test(m));
  return {
    core: core.length > 0 ? core.join(" ") : `Little is known yet about ${name}'s character.`,
    occupation,
    feeling: all.length === 0
      ? `How ${name} feels about recent progress is not known yet.`
      : worry !== undefined
      ? worryOf(worry, name)
      : eager !== undefined
      ? `${name} is looking forward to what is coming up.`
      : `${name} feels settled in the daily routine.`,
  };
}
