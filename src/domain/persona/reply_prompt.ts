/**
 * @module The reply prompt of the Magic-If pipeline: what it shows (facets, memories with their
 * source, card notes), fitted into the token budget, and the reply it gets back, formatted.
 */
import { SimulacraError } from "../errors.ts";
import type { Provenance } from "../memory/mod.ts";
import {
  buildRespondPrompt,
  type Prompt,
  type RespondFacet,
  type RespondPromptInput,
  type RespondPromptOutput,
} from "../prompts/mod.ts";
import type { PersonaRecord, SceneFacet } from "./persona.ts";

/** What the prompt-size budget did. */
export interface BudgetReport {
  limit: number;
  /** Estimated prompt tokens of the prompt sent (⌈characters / 3.5⌉, a cautious estimate). */
  estimatedTokens: number;
  /** How many items of each kind were left out to fit. */
  trimmed: { history: number; memories: number; facets: number; cardNotes: number };
}

/** Earlier turns a prompt shows at most, before the budget trims them. */
export const PROMPT_TURNS = 20;
/** Provenance in plain words, so the model keeps claims apart from what the character knows. */
export function sourceOf(provenance: Provenance): string {
  switch (provenance) {
    case "witnessed":
      return "witnessed by the character";
    case "seed":
      return "background: part of who the character is";
    case "self":
      return "the character's own words or thoughts";
    case "inner_voice":
      return "the character's inner voice";
    default:
      if (provenance.startsWith("trigger:")) {
        return `an event of the game world (${provenance}) the character lived through`;
      }
      return `${provenance}: what ${
        provenance.slice("told_by:".length)
      } told the character, a claim the character did not witness`;
  }
}

/** A scene facet as the reply prompt shows it. */
export function facetView(f: SceneFacet): RespondFacet {
  return {
    title: f.title,
    time_scope: f.time_scope,
    situation: f.situation,
    social_role: f.social_role,
    emotional_state: f.emotional_state,
    behavior_pattern: f.behavior_pattern,
    thinking_pattern: f.thinking_pattern,
    conflict_with_core: f.conflict_with_core,
  };
}

/** The estimated prompt tokens of a prompt: ⌈characters / 3.5⌉ (errs high for English). */
export function estimatePromptTokens(prompt: Prompt<unknown>): number {
  return Math.ceil(prompt.messages.reduce((n, m) => n + m.content.length + 12, 0) / 3.5);
}

/** Card text the prompt shows: style notes and sample dialogue, clipped. */
export function cardNotesOf(record: PersonaRecord | null): string[] {
  const card = record?.card;
  if (!card) return [];
  return [card.system_prompt, card.post_history_instructions, card.mes_example]
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
    .map((t) => (t.length > 1500 ? `${t.slice(0, 1500)}…` : t));
}

/**
 * Builds the reply prompt within the token budget, leaving out the least useful parts first:
 * old turns, card notes, weaker memories, extra facets, then the rest of the history, memories
 * and relationships.
 * @throws `unprocessable` when even the bare prompt exceeds the budget.
 */
export function promptWithinBudget(
  input: RespondPromptInput,
  limit: number,
): { prompt: Prompt<RespondPromptOutput>; budget: BudgetReport } {
  const draft: RespondPromptInput = {
    ...input,
    history: input.history.slice(-PROMPT_TURNS),
    anchor: { ...input.anchor, relationships: [...input.anchor.relationships] },
  };
  const trimmed = {
    history: input.history.length - draft.history.length,
    memories: 0,
    facets: 0,
    cardNotes: 0,
  };
  const steps: (() => boolean)[] = [
    () => draft.history.length > 2 && (draft.history.shift(), trimmed.history++, true),
    () => draft.cardNotes.length > 0 && (draft.cardNotes.pop(), trimmed.cardNotes++, true),
    () => draft.memories.length > 2 && (draft.memories.pop(), trimmed.memories++, true),
    () => draft.facets.length > 1 && (draft.facets.pop(), trimmed.facets++, true),
    () => draft.history.length > 0 && (draft.history.shift(), trimmed.history++, true),
    () => draft.memories.length > 0 && (draft.memories.pop(), trimmed.memories++, true),
    () => draft.anchor.relationships.length > 0 && (draft.anchor.relationships.pop(), true),
  ];
  let prompt = buildRespondPrompt(draft);
  let tokens = estimatePromptTokens(prompt);
  while (tokens > limit) {
    const step = steps.find((s) => s());
    if (step === undefined) {
      throw new SimulacraError(
        "unprocessable",
        `Cannot fit the reply prompt into tokenBudget ${limit}: its fixed part needs about ${tokens} tokens: raise tokenBudget or send a shorter message`,
        { details: { tokenBudget: limit, needed: tokens } },
      );
    }
    prompt = buildRespondPrompt(draft);
    tokens = estimatePromptTokens(prompt);
  }
  return { prompt, budget: { limit, estimatedTokens: tokens, trimmed } };
}

/** `Name: (actions) words [thoughts]`, with a name the model added itself removed. */
export function formatReply(name: string, value: RespondPromptOutput): string {
  let words = value.reply.trim();
  const prefix = `${name}:`;
  if (words.toLowerCase().startsWith(prefix.toLowerCase())) {
    words = words.slice(prefix.length).trim();
  }
  words = words.replace(/^"(.*)"$/s, "$1");
  const actions = value.actions?.trim().replace(/^\((.*)\)$/s, "$1");
  const thoughts = value.thoughts?.trim().replace(/^\[(.*)\]$/s, "$1");
  return [
    `${name}:`,
    ...(actions ? [`(${actions})`] : []),
    words,
    ...(thoughts ? [`[${thoughts}]`] : []),
  ].join(" ");
}
