/**
 * @module The social state of one agent, one document: its relationships by person and its
 * mood. Updated from the memories as they are stored (see {@linkcode bondsAfter}).
 */
import { z } from "zod";
import { bondAfter, peopleOf, personKey, type SocialEvent, StoredBond } from "./relationship.ts";
import { moodAfter, type MoodBaseline, StoredMood } from "./mood.ts";

/** Most people one agent keeps a relationship with; the least familiar go first beyond it. */
export const MAX_BONDS = 500;

/** The stored document: relationships keyed by {@linkcode personKey}, and the mood. */
export const Bonds = z.object({
  relationships: z.record(z.string(), StoredBond),
  mood: StoredMood.nullable(),
});
export type Bonds = z.infer<typeof Bonds>;

/** An agent that has met no one and felt nothing yet. */
export const NO_BONDS: Bonds = { relationships: {}, mood: null };

/**
 * The state after memories just stored, in order: each moves the bond with every person it names
 * (see `peopleOf`: the teller, the one spoken to, known people its text names) and, when
 * important, the mood. Undefined when nothing changes.
 */
export function bondsAfter(
  bonds: Bonds | null,
  events: readonly SocialEvent[],
  context: { self: string; baseline: MoodBaseline },
): Bonds | undefined {
  const relationships = { ...(bonds ?? NO_BONDS).relationships };
  let mood = (bonds ?? NO_BONDS).mood;
  let changed = false;
  for (const event of events) {
    const known = Object.values(relationships).map((b) => b.name);
    for (const name of peopleOf(event, { self: context.self, known })) {
      const key = personKey(name);
      relationships[key] = bondAfter(relationships[key] ?? null, event, name);
      changed = true;
    }
    const moved = moodAfter(mood, event, context.baseline);
    if (moved !== null) {
      mood = moved;
      changed = true;
    }
  }
  if (!changed) return undefined;
  return { relationships: trimmed(relationships), mood };
}

/** At most {@linkcode MAX_BONDS} relationships: the least familiar, longest unseen go first. */
function trimmed(relationships: Record<string, StoredBond>): Record<string, StoredBond> {
  const entries = Object.entries(relationships);
  if (entries.length <= MAX_BONDS) return relationships;
  entries.sort(([, a], [, b]) =>
    b.familiarity - a.familiarity || (b.updatedAt < a.updatedAt ? -1 : 1)
  );
  return Object.fromEntries(entries.slice(0, MAX_BONDS));
}

/** The bond with a person by name (case-insensitive), or null when they never met. */
export function bondWith(bonds: Bonds | null, name: string): StoredBond | null {
  return bonds?.relationships[personKey(name)] ?? null;
}
