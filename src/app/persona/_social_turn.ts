/**
 * @module Private to persona: what a reply adds from issue 22 — how the agent feels about the
 * person in front of it, its mood, and the world lore the dialogue calls up that it knows (a
 * secret only for someone trusted enough). Two document reads per reply, no model call.
 */
import {
  type AgentScope,
  type Bonds,
  matchLore,
  type RespondPromptInput,
  type UsedLore,
  type WorldLoreEntry,
} from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { bondForPrompt, loadBonds, loadLore, moodOf } from "../social/mod.ts";

/** The agent's relationships and mood, and the world's lore, loaded once per reply context. */
export interface SocialContext {
  bonds: Bonds | null;
  lore: WorldLoreEntry[];
}

/** Loads what {@linkcode socialOfTurn} reads. */
export async function loadSocial(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<SocialContext> {
  const [bonds, lore] = await Promise.all([loadBonds(deps, scope), loadLore(deps, scope.worldId)]);
  return { bonds, lore };
}

/** The prompt's social fields for one turn, and the lore it used. */
export function socialOfTurn(
  social: SocialContext | undefined,
  turn: {
    agent: { id: string; name: string; traits: readonly string[]; description: string };
    speaker: string | null;
    /** The recent dialogue the lore keys are matched in. */
    text: string;
    at: string;
  },
): { fields: Pick<RespondPromptInput, "bond" | "mood" | "lore">; used: UsedLore[] } {
  if (social === undefined) return { fields: {}, used: [] };
  const bond = bondForPrompt(social.bonds, { agentName: turn.agent.name, name: turn.speaker });
  const mood = moodOf(social.bonds, { agent: turn.agent, at: turn.at });
  const matched = matchLore(social.lore, {
    text: turn.text,
    agentId: turn.agent.id,
    trust: bond.trust,
  });
  return {
    fields: {
      bond: bond.shown,
      mood: { label: mood.label, valence: mood.valence, arousal: mood.arousal },
      lore: matched.map(({ entry }) => ({ id: entry.id, content: entry.content })),
    },
    used: matched.map(({ entry, matched }) => ({ id: entry.id, matched })),
  };
}
