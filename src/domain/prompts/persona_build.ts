/** @module Prompt: derive a Narrative Schema persona from what is known about a character (Memory-Driven Role-Playing §3.3). */
import { z } from "zod";
import { chatPrompt, dataSection, type Prompt } from "./prompt.ts";
import { inertJson } from "./data_block.ts";

/** Character text from an imported card (never its creator notes). */
export interface PersonaBuildCard {
  personality: string;
  scenario: string;
  /** Sample dialogue showing how the character talks. */
  examples: string;
}

/** Inputs of {@linkcode buildPersonaBuildPrompt}. */
export interface PersonaBuildInput {
  agentName: string;
  /** The agent's one-paragraph description (or a card's description). */
  description: string;
  traits: string[];
  /** The agent's most telling memories (seeds, important and recent ones). */
  memories: string[];
  /** A free narrative about the character, when the caller gives one. */
  narrative: string | null;
  card: PersonaBuildCard | null;
}

const text = (max: number) => z.string().max(max);

/**
 * The persona as the model writes it: every field present (strict structured outputs), with the
 * Narrative Schema's bounds; empty strings and lists stand for "not known".
 */
export const PersonaBuildOutput = z.object({
  name: z.string().min(1).max(100),
  nickname: text(100),
  relationships: z
    .array(
      z.object({ name: z.string().min(1).max(100), relationship: text(200), attitude: text(300) }),
    )
    .max(30),
  global_summary: text(4000),
  core_traits: z.array(z.object({ trait: z.string().min(1).max(80), desc: text(400) })).min(4).max(
    8,
  ),
  scene_facets: z
    .array(z.object({
      title: z.string().min(1).max(120),
      time_scope: z.array(z.string().min(1).max(120)).max(6),
      situation: z.string().min(1).max(600),
      social_role: z.array(z.string().min(1).max(100)).max(6),
      emotional_state: text(300),
      behavior_pattern: text(600),
      thinking_pattern: text(600),
      conflict_with_core: text(400),
      source_scenes: z.array(z.string().min(1).max(300)).max(8),
      cue_phrases: z.array(z.string().min(1).max(80)).max(20),
    }))
    .min(1)
    .max(12),
});
export type PersonaBuildOutput = z.infer<typeof PersonaBuildOutput>;

/**
 * Builds the persona-derivation prompt (main tier): abstract stable traits and cluster recurring
 * situations into cue-addressable facets, staying faithful to the sources.
 * @see Wang et al. 2026 Appendix C (schema) and Appendix O.1 (construction).
 */
export function buildPersonaBuildPrompt(input: PersonaBuildInput): Prompt<PersonaBuildOutput> {
  return chatPrompt({
    kind: "persona_build",
    tier: "main",
    input,
    schema: PersonaBuildOutput,
    maxTokens: 3000,
    rules: [
      "You turn what is known about a character into a structured persona that another model will use to play the character faithfully.",
      "Do not retell the sources. Instead: find the character's stable traits across everything you are given; group recurring kinds of situations into scene facets; and make each facet easy to look up from a conversation.",
      "core_traits: 4 to 8 traits, each a short label with a one-sentence desc of how it shows in behaviour.",
      "scene_facets: 5 to 8 when the sources allow, at least 1, never more than 12, each with a unique title. For each give: time_scope (the life or story phase it belongs to), situation (the recurring context that calls it up), social_role, emotional_state, behavior_pattern, thinking_pattern, conflict_with_core (how it stretches or strains the core traits, or empty), source_scenes (short pointers to the events it rests on), and cue_phrases (words someone might say that should call this facet up).",
      "relationships: the people the sources name, with how they relate and the character's attitude to them. global_summary: one or two paragraphs that give the overall picture.",
      "Stay faithful: never invent major events or facts that the sources do not support; leave a field empty rather than guess.",
      "Answer with one JSON object with exactly the keys name, nickname, relationships, global_summary, core_traits, scene_facets.",
    ],
    user: [
      `Character: ${inertJson(input.agentName)}`,
      dataSection("Description", "description", input.description),
      dataSection("Innate traits", "traits", input.traits),
      ...(input.narrative === null
        ? []
        : [dataSection("Narrative about the character", "narrative", input.narrative)]),
      ...(input.card === null
        ? []
        : [dataSection("Character card text by its author", "card", input.card)]),
      dataSection("Memories of the character", "memories", input.memories),
    ],
  });
}
