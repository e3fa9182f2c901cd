/** @module A probe's prompt input for a character given as data (a benchmark item), not stored: the same select and bound stages a reply runs, with the character's memories given. */
import {
  boundaryHints,
  facetView,
  type GameTime,
  type Persona,
  type RespondPromptInput,
  sourceOf,
} from "../../domain/mod.ts";
import { selectFacets } from "../../mind/mod.ts";
import { cuesOf } from "../persona/mod.ts";
import type { Probe } from "./evaluate_schema.ts";
import type { PreparedProbe } from "./probe_runs.ts";

/** A character as a benchmark gives it: persona, profile and the memories it has. */
export interface BenchCharacter {
  name: string;
  /** Identity and occupation, as an agent summary would say them. */
  profile: string;
  persona: Persona;
  /** What the character remembers, oldest first. */
  memories: string[];
  /** The character's present. */
  now: GameTime;
  home?: string;
  workplace?: string;
}

/**
 * Who says the probes, as the character sees it: a passer-by, not a named person (a name would
 * be a cue of its own, and the anonymised counterpart could not hide it).
 */
export const EVALUATOR = {
  name: "A visitor",
  description: "someone talking with the character to see how it answers",
};

/**
 * The respond prompt's input for one probe to a benchmark character: facets selected by the
 * probe's cues (no embeddings: benchmark runs make no embedding calls), its memories as its own
 * background, the boundary hints of the message. No model call.
 */
export function characterInput(
  character: BenchCharacter,
  probe: Probe,
  options: { turns?: { speaker: string; text: string }[] } = {},
): PreparedProbe {
  const history = options.turns ?? [];
  const { persona } = character;
  const selection = selectFacets(persona, { cues: cuesOf(history, probe.message), relevance: [] }, {
    top: 2,
  });
  const input: RespondPromptInput = {
    agentName: character.name,
    mode: "chat",
    speaker: EVALUATOR,
    now: character.now,
    anchor: {
      summary: character.profile,
      home: character.home ?? null,
      workplace: character.workplace ?? null,
      nickname: persona.nickname,
      globalSummary: persona.global_summary,
      coreTraits: persona.core_traits,
      relationships: persona.relationships,
    },
    facets: selection.selected.map(facetView),
    memories: character.memories.map((text) => ({
      text,
      when: character.now,
      source: sourceOf("seed"),
    })),
    plan: [],
    cardNotes: [],
    history,
    message: probe.message,
    boundaryHints: boundaryHints(probe.message, character.now),
    disclosure: false,
  };
  return { probe, input, persona, ranking: selection.ranking };
}
