/** @module Offline responder for the "persona_build" prompt: a persona assembled from the sources' own words. */
import type { PersonaBuildInput, PersonaBuildOutput } from "../../../src/domain/mod.ts";
import { contentStems, STOP_WORDS, words } from "../text.ts";
import { predicateOf } from "./_gist.ts";

/** Traits the offline model falls back on, marked as assumed, when the sources name too few. */
const FALLBACK_TRAITS = ["observant", "steady", "practical", "sociable"];

function clip(text: string, max: number): string {
  const t = text.trim().replace(/\s+/g, " ");
  return t.length <= max ? t : `${t.slice(0, max - 1)}…`;
}

function sentences(text: string): string[] {
  return text
    .split(/\n+|;|(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 3);
}

const WORRIED = /\b(?:worr\w*|upset|anxious|stress\w*|afraid|rent went up|struggl\w*)\b/i;
const EAGER = /\b(?:party|festival|celebrat\w*|excit\w*|plan\w*|campaign|election|love\w*)\b/i;

/** A facet's title: what the sentence says the character does, in a few words, capitalised. */
function titleOf(sentence: string, name: string): string {
  const words = predicateOf(sentence, name).replace(/^remembers that /, "").split(/\s+/);
  const title = words.slice(0, 5).join(" ").replace(/[,.;:]+$/, "");
  return clip(`${title.charAt(0).toUpperCase()}${title.slice(1)}`, 120);
}

/** The longest word taken as a cue phrase: a longer one is no word (the schema allows 80). */
const MAX_CUE = 40;

/** The distinct content words of a text, longest first, as cue phrases. */
function cuesOf(text: string, max: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const word of words(text)) {
    if (word.length < 4 || word.length > MAX_CUE || STOP_WORDS.has(word)) continue;
    const stem = contentStems(word)[0] ?? word;
    if (seen.has(stem)) continue;
    seen.add(stem);
    out.push(word);
  }
  return out.sort((a, b) => b.length - a.length).slice(0, max);
}

/**
 * Answers from the input alone: traits from the card's personality and the agent's traits
 * (padded with assumed ones to reach 4), one facet per source sentence (up to 6) titled and
 * patterned by what the sentence says the character does, its mood from worried or eager
 * words, its longest content words as cue phrases, and the description as the global summary.
 */
export function answerPersonaBuild(input: unknown): PersonaBuildOutput {
  const i = input as PersonaBuildInput;
  const named = [
    ...(i.card?.personality.split(/[,;\n/]+/) ?? []),
    ...i.traits,
  ].map((t) => clip(t.replace(/\.$/, ""), 80)).filter((t) => t.length > 0);
  const traits = [...new Set(named)].slice(0, 8).map((trait) => ({
    trait,
    desc: `Named as one of ${i.agentName}'s traits.`,
  }));
  for (const trait of FALLBACK_TRAITS) {
    if (traits.length >= 4) break;
    if (!traits.some((t) => t.trait === trait)) {
      traits.push({
        trait,
        desc: "Assumed by the offline model: the sources name too few traits.",
      });
    }
  }
  const sources = [
    ...(i.narrative === null ? [] : sentences(i.narrative)),
    ...(i.card === null ? [] : sentences(i.card.scenario)),
    ...sentences(i.description),
    ...i.memories.flatMap(sentences),
  ];
  const situations = [...new Set(sources)].slice(0, 6);
  if (situations.length === 0) situations.push(`${i.agentName} going about an ordinary day`);
  const scene_facets = situations.map((s) => ({
    title: titleOf(s, i.agentName),
    time_scope: ["the present"],
    situation: clip(s, 600),
    social_role: [],
    emotional_state: WORRIED.test(s)
      ? "worried"
      : EAGER.test(s)
      ? "looking forward to it"
      : "at ease",
    behavior_pattern: clip(predicateOf(s, i.agentName), 300),
    thinking_pattern: "",
    conflict_with_core: "",
    source_scenes: [clip(s, 300)],
    cue_phrases: cuesOf(s, 4),
  }));
  return {
    name: clip(i.agentName, 100),
    nickname: "",
    relationships: [],
    global_summary: clip(i.narrative ?? i.description, 4000),
    core_traits: traits,
    scene_facets,
  };
}
