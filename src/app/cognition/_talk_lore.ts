/**
 * @module Private to cognition: the world lore each line of a talk carries (issue 22), matched in
 * the topic and the last lines; a secret (`minTrust`) only when the speaker trusts the listener
 * that much. Read once per talk, no model call.
 */
import {
  type Agent,
  bondWith,
  matchLore,
  type World,
  type WorldId,
  type WorldLoreEntry,
} from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { loadBonds, loadLore } from "../social/mod.ts";

/** The lore of a talk: per line, the entries its speaker (0 or 1) brings up. */
export interface TalkLore {
  forLine(side: number, recent: readonly string[]): WorldLoreEntry[];
}

/** Reads the world's lore and both speakers' trust in each other. */
export async function talkLore(
  deps: Pick<Deps, "storage">,
  world: World,
  people: readonly [Agent, Agent],
): Promise<TalkLore> {
  const entries = await loadLore(deps, world.id);
  if (entries.length === 0) return { forLine: () => [] };
  const bonds = await Promise.all(
    people.map((p) => loadBonds(deps, { worldId: world.id as WorldId, agentId: p.id })),
  );
  const trust = people.map((_, i) => bondWith(bonds[i], people[1 - i].name)?.trust ?? null);
  return {
    forLine: (side, recent) =>
      matchLore(entries, {
        text: recent.join("\n"),
        agentId: people[side].id,
        trust: trust[side],
      }).map((m) => m.entry),
  };
}
