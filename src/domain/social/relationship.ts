/**
 * @module Relationships derived from the memory stream: who an agent has met, how often, and how
 * it feels about them (issue 22). Each stored memory that names someone moves the numbers by its
 * importance and valence (rated by the importance call the memory already costs), so keeping
 * them costs no model call; the evidence is the memories that moved them.
 */
import { z } from "zod";

/** How many memory ids a relationship keeps as evidence (the newest). */
export const BOND_EVIDENCE = 12;

/** One relationship as stored: the raw numbers; closeness and kind are derived when read. */
export const StoredBond = z.object({
  /** The other's name as the memories spell it. */
  name: z.string().min(1),
  familiarity: z.number().int().min(0),
  trust: z.number().min(-1).max(1),
  affinity: z.number().min(-1).max(1),
  /** The last reflection about them, or null until the agent reflected about them. */
  summary: z.string().nullable(),
  evidence: z.array(z.string()),
  firstMetAt: z.string(),
  updatedAt: z.string(),
});
export type StoredBond = z.infer<typeof StoredBond>;

/** What a stored memory tells about people: who it names and how it felt. */
export interface SocialEvent {
  memoryId: string;
  kind: string;
  provenance: string;
  description: string;
  /** 1–10. */
  importance: number;
  /** How the moment felt to the agent, -1 (hurtful) to 1 (kind); 0 or null when neutral or unrated. */
  valence: number | null;
  at: string;
}

/** A relationship as the API answers it. */
export interface RelationshipView {
  /** The other agent's id, or the speaker's name. */
  with: string;
  name: string;
  kind: "agent" | "speaker";
  familiarity: number;
  closeness: number;
  trust: number;
  affinity: number;
  summary: string;
  evidence: string[];
  updatedAt: string;
}

/** A relationship as a prompt shows it: the words and the numbers, for the person in front of the agent. */
export interface BondShown {
  name: string;
  summary: string;
  familiarity: number;
  closeness: number;
  trust: number;
  affinity: number;
}

/** The key a name is stored under: case and spacing do not make another person. */
export function personKey(name: string): string {
  return name.trim().replace(/\s+/g, " ").toLowerCase();
}

const SAID_TO = /^.+? said to (.+?): "/;
const I_TOLD = /^I told (.+?): "/;

/**
 * Who a memory is an interaction with: the teller of what it was told (`told_by:`), the person
 * the agent spoke to ("X said to Y", "I told Y"), and every known person its text names (whole
 * words, case-insensitive). Never the agent itself.
 */
export function peopleOf(
  event: Pick<SocialEvent, "provenance" | "description">,
  context: { self: string; known: readonly string[] },
): string[] {
  const found = new Map<string, string>();
  const add = (name: string) => {
    const k = personKey(name);
    if (k !== "" && k !== personKey(context.self) && !found.has(k)) found.set(k, name.trim());
  };
  if (event.provenance.startsWith("told_by:")) add(event.provenance.slice(8));
  const spoken = SAID_TO.exec(event.description) ?? I_TOLD.exec(event.description);
  if (spoken && event.provenance === "self") add(spoken[1]);
  const text = ` ${wordsOf(event.description)} `;
  for (const name of context.known) {
    if (text.includes(` ${wordsOf(name)} `)) add(name);
  }
  return [...found.values()];
}

/** Lower-case words separated by single spaces (letters and digits only). */
export function wordsOf(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * The bond after one memory: familiarity counts the interaction; a felt moment pulls affinity
 * toward its valence, the more the more important it was, and trust the same way but only for
 * what the other did or said to the agent (a favour, a slight, a claim) — not for what the agent
 * did or merely thought; a reflection about them becomes the summary. Neutral moments keep the
 * feelings as they are.
 */
export function bondAfter(bond: StoredBond | null, event: SocialEvent, name: string): StoredBond {
  const base: StoredBond = bond ?? {
    name,
    familiarity: 0,
    trust: 0,
    affinity: 0,
    summary: null,
    evidence: [],
    firstMetAt: event.at,
    updatedAt: event.at,
  };
  const v = event.valence ?? 0;
  const weight = 0.15 + 0.35 * clamp(event.importance / 10, 0, 1);
  const byThem = event.provenance !== "self" && event.kind !== "reflection";
  const felt = v !== 0;
  return {
    ...base,
    // An interaction is what they said or did; the agent's own answers and thoughts add none.
    familiarity: base.familiarity + (byThem ? 1 : 0),
    affinity: felt
      ? round(clamp(base.affinity + weight * (v - base.affinity), -1, 1))
      : base.affinity,
    trust: felt && byThem
      ? round(clamp(base.trust + weight * (v - base.trust), -1, 1))
      : base.trust,
    summary: event.kind === "reflection" ? event.description : base.summary,
    evidence: [...base.evidence.filter((id) => id !== event.memoryId), event.memoryId].slice(
      -BOND_EVIDENCE,
    ),
    updatedAt: event.at > base.updatedAt ? event.at : base.updatedAt,
  };
}

/**
 * Closeness 0..1: grows with familiarity (half-way at 8 interactions) and is held back by
 * dislike; a stranger is 0.
 */
export function closenessOf(bond: Pick<StoredBond, "familiarity" | "affinity">): number {
  const known = 1 - Math.exp(-bond.familiarity / 11.5);
  return round(clamp(known * (0.6 + 0.4 * bond.affinity), 0, 1));
}

/** Words for a number from -1 to 1, for summaries and prompts. */
function feelingWord(x: number, words: readonly [string, string, string]): string {
  return x >= 0.25 ? words[0] : x <= -0.25 ? words[2] : words[1];
}

/** The summary until the agent reflects about them: what the numbers say, in words. */
export function describeBond(bond: StoredBond, agentName: string): string {
  if (bond.summary !== null) return bond.summary;
  const times = bond.familiarity === 1 ? "once" : `${bond.familiarity} times`;
  return `${agentName} has dealt with ${bond.name} ${times}; feels ${
    feelingWord(bond.affinity, ["warmly", "neutral", "coldly"])
  } toward them and ${
    feelingWord(bond.trust, ["trusts", "neither trusts nor distrusts", "distrusts"])
  } them.`;
}

/** A stored bond as the API answers it, given what the other is (an agent of the world or not). */
export function relationshipView(
  bond: StoredBond,
  context: { agentName: string; other: { id: string } | null },
): RelationshipView {
  return {
    with: context.other?.id ?? bond.name,
    name: bond.name,
    kind: context.other ? "agent" : "speaker",
    familiarity: bond.familiarity,
    closeness: closenessOf(bond),
    trust: bond.trust,
    affinity: bond.affinity,
    summary: describeBond(bond, context.agentName),
    evidence: bond.evidence,
    updatedAt: bond.updatedAt,
  };
}
