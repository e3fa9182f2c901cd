/**
 * @module Each agent's view of its area in a tick, worked out where it is needed rather than
 * stored: from who was where when the tick was planned (the roster, one entry per agent), the
 * environment, and what the agent saw at its last look (its own document). A view lists every
 * other agent in the area, so storing every agent's view in the tick's plan made the plan grow
 * with the square of the agents sharing a place (BENCHMARKS.md, "Crowded worlds").
 */
import type { Environment, GameAction } from "../../domain/mod.ts";
import {
  perceiveArea,
  type Perception,
  type Seeable,
  type Seen,
  type Sighting,
} from "./perception.ts";

/** What each agent saw at its last look, by agent id, with that document's version. */
export type LastLooks = ReadonlyMap<string, { seen: Seen; version: number }>;

/** What one agent will do with what it sees this tick. */
export interface TickView {
  perception: Perception;
  /** What it saw at its last look, and that document's version. */
  seen: Seen;
  seenVersion: number | undefined;
  /** What the agent decides about: a newly seen agent, or objects whose state someone changed. */
  trigger?: { observed: Sighting } | { objects: Sighting[] };
}

/** What every view of a tick is worked out from, besides each agent's last look. */
export interface ViewBasis {
  env: Environment | null;
  /** Every agent as it was when the tick was planned, in listing order. */
  roster: readonly Seeable[];
  /** Each deciding agent's newcomer this tick (who talks to whom), by the decider's id. */
  pairs: ReadonlyMap<string, Sighting>;
  /**
   * Who else joins each decider's conversation this tick (world `groupTalk`), by the decider's
   * id; absent in plans stored before group talk (pairs only).
   */
  circles?: ReadonlyMap<string, readonly string[]>;
  /** Subjects of objects whose state someone other than an agent set: seen changed, a trigger. */
  changedObjects: ReadonlySet<string>;
  /** How much each agent attends to; absent in plans stored before attention (all of it). */
  attention?: { bandwidth: number; turn: string };
  /** Object states an agent's use set (`location|state`), the routine sights attention ranks low. */
  routine?: ReadonlySet<string>;
  /**
   * The world's registered actions (PUT …/actions), read once for the tick; absent in plans
   * stored before them (each step then reads them when it decomposes an hour).
   */
  gameActions?: readonly GameAction[];
}

/** The views of a tick's agents, each worked out when first asked for. */
export interface TickViews {
  /** @throws when the agent is not in the tick's roster or its last looks were not loaded. */
  get(agentId: string): TickView;
}

/**
 * The views of a tick's agents from its basis and their last looks (absent where no view is
 * needed: the close). The same basis and looks give the same views in any process.
 */
export function tickViews(basis: ViewBasis, looks: LastLooks | undefined): TickViews {
  const byId = new Map(basis.roster.map((agent) => [agent.id as string, agent]));
  const made = new Map<string, TickView>();
  return {
    get(agentId) {
      const known = made.get(agentId);
      if (known) return known;
      const agent = byId.get(agentId);
      if (agent === undefined || looks === undefined) {
        throw new Error(`Cannot work out the view of agent "${agentId}" in this tick`);
      }
      const view = viewOf(agent, basis, looks.get(agentId));
      made.set(agentId, view);
      return view;
    },
  };
}

function viewOf(
  agent: Seeable,
  basis: ViewBasis,
  before: { seen: Seen; version: number } | undefined,
): TickView {
  const seen = before?.seen ?? {};
  const routine = basis.routine ?? new Set<string>();
  const attention = basis.attention && {
    ...basis.attention,
    routine: (location: string, state: string) => routine.has(`${location}|${state}`),
  };
  const perception = perceiveArea(
    agent,
    { others: basis.roster, env: basis.env, attention },
    seen,
  );
  const observed = basis.pairs.get(agent.id);
  const objects = changedInView(perception.sightings, basis.changedObjects);
  // A decider has no changed objects in view (`pairNewcomers` passes over those).
  const trigger = observed !== undefined
    ? { observed }
    : objects.length > 0
    ? { objects }
    : undefined;
  return { perception, seen, seenVersion: before?.version, trigger };
}

/** The sightings of objects seen changed whose state someone other than an agent set. */
export function changedInView(
  sightings: readonly Sighting[],
  changedObjects: ReadonlySet<string>,
): Sighting[] {
  return sightings.filter((s) =>
    s.observed === undefined && s.changed && changedObjects.has(s.subject)
  );
}

/** A roster entry as stored in a plan: id, name, location, action. */
export type StoredSeeable = [string, string, string | null, string | null];

/** The roster as the plan stores it (positional: some 40 bytes an agent less than objects). */
export function storeRoster(roster: readonly Seeable[]): StoredSeeable[] {
  return roster.map((a) => [a.id, a.name, a.location, a.action]);
}

/** The roster back from its stored form. */
export function readRoster(stored: readonly StoredSeeable[]): Seeable[] {
  return stored.map(([id, name, location, action]) => ({
    id: id as Seeable["id"],
    name,
    location,
    action,
  }));
}
