/**
 * @module An agent's stable identity: who its own documents say it is (description, traits, home,
 * workplace, a card's persona). Every summary starts from it and memories add what changed, so a
 * week of fresher sightings cannot push who the agent is out of its profile (Generative Agents
 * §4.2 keeps the same in fixed fields: innate traits, learned traits, lifestyle).
 */
import type { Agent } from "./agent.ts";

/** The stable core of an agent, as the summary prompt shows it. */
export interface AgentIdentity {
  /** The description's phrases, in order, each at most {@linkcode IDENTITY_PHRASE_CHARS}. */
  description: string[];
  traits: string[];
  home: string | null;
  workplace: string | null;
  /** A persona's global summary (a card's, or one built or set), "" without a persona. */
  background: string;
}

/** Longest description phrase an identity keeps, in characters. */
export const IDENTITY_PHRASE_CHARS = 300;
/** Most characters of description an identity keeps (a card's description can run to 8,000). */
export const IDENTITY_DESCRIPTION_CHARS = 1200;
/** Longest persona background an identity keeps, in characters. */
export const IDENTITY_BACKGROUND_CHARS = 400;

function clipped(text: string, max: number): string {
  const t = text.replace(/\s+/g, " ").trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * A description as phrases: split on semicolons (the seed phrases of `POST …/agents`), line
 * breaks and sentence ends (a card's prose), each clipped, the first ones up to
 * {@linkcode IDENTITY_DESCRIPTION_CHARS} in all.
 */
export function identityPhrases(description: string): string[] {
  const out: string[] = [];
  let total = 0;
  for (const raw of description.split(/;|\n+|(?<=[.!?])\s+(?=\p{Lu})/u)) {
    const phrase = clipped(raw.replace(/[.;\s]+$/, ""), IDENTITY_PHRASE_CHARS);
    if (phrase.length === 0) continue;
    if (total + phrase.length > IDENTITY_DESCRIPTION_CHARS && out.length > 0) break;
    out.push(phrase);
    total += phrase.length;
  }
  return out;
}

/** The identity of `agent`, with its persona's global summary when it has a persona (a card's, or one built or set). */
export function agentIdentity(
  agent: Pick<Agent, "description" | "traits" | "home" | "workplace">,
  persona: { global_summary: string } | null,
): AgentIdentity {
  const background = persona ? clipped(persona.global_summary, IDENTITY_BACKGROUND_CHARS) : "";
  const flat = (t: string) => t.replace(/\s+/g, " ").trim().toLowerCase();
  // A persona built from the description alone says it again: once is enough.
  const repeats = flat(agent.description).includes(flat(background).replace(/…$/, ""));
  return {
    description: identityPhrases(agent.description),
    traits: agent.traits,
    home: agent.home,
    workplace: agent.workplace,
    background: repeats ? "" : background,
  };
}
