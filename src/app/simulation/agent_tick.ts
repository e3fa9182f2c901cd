/**
 * @module The agent tick system: the behaviour of `agent_step.ts` with how its steps travel, in
 * process or through the queue alike. Agents paired to talk this tick
 * (one saw the other arrive) are one message, so no step waits on another's lock, and the pair's
 * decision and conversation run in that message, in its first step (`pairDecision`), not while
 * the tick is planned. The shared preparation travels as JSON in the tick's plan: what the views
 * are worked out from (who was where, who is paired with whom, which objects someone changed)
 * and the scores, each growing with the agents, not with the square of those sharing a place;
 * every agent's last look is read with the plan (`load`), once per process. The objects each
 * step put to use come back for the close.
 */
import {
  type Agent,
  type AgentId,
  type AgentScope,
  type Environment,
  type GameAction,
  SimulacraError,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import { agentKey, loadAgent } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import type { PlanSize, TickFrame, TickSystem } from "../engine/mod.ts";
import { worldKey } from "../world/mod.ts";
import { agentSteps, type AgentTickOptions, type StepCarried } from "./agent_step.ts";
import type { AgentStepSummary } from "./step_summary.ts";
import { objectStateDocuments } from "./object_states.ts";
import type { TickShared } from "./tick_prepare.ts";
import { PairDecisions, type Talks } from "./_talk_pairs.ts";
import { loadSeen, type Sighting } from "./perception.ts";
import {
  type LastLooks,
  readRoster,
  type StoredSeeable,
  storeRoster,
  type TickView,
  tickViews,
  type ViewBasis,
} from "./tick_views.ts";

/** The shared preparation as a plan stores it. */
interface EncodedShared {
  env: Environment | null;
  roster: StoredSeeable[];
  pairs: [string, Sighting][];
  circles?: [string, string[]][];
  changedObjects: string[];
  attention?: { bandwidth: number; turn: string };
  routine?: string[];
  /** Left out when the world has none, so steps know without reading. */
  gameActions?: GameAction[];
  scores: [string, number][];
}

/** The shared preparation as plans stored before views were worked out in the steps. */
interface EncodedViews {
  env: Environment | null;
  views: [string, TickView][];
  scores: [string, number][];
}

/** The tick system of a world's agents (see `agentSteps` for what a step does). */
export function agentTickSystem(
  deps: Deps,
  options: AgentTickOptions = {},
): TickSystem<Agent, TickShared, AgentStepSummary, World> {
  // A system serves one tick (in process) or one message of it: its steps share the pair decisions they made or
  // read back, so the second step of a pair does not read it from the store again.
  const decisions = new PairDecisions();
  const base = agentSteps(deps, options);
  const scopeOf = (frame: TickFrame<World>, key: string): AgentScope => ({
    worldId: frame.world.id as WorldId,
    agentId: key as AgentId,
  });
  return {
    ...base,
    tooLarge: (frame, size, shared) => worldTooLarge(frame.world, size, shared),
    groups: (_frame, agents, shared) => conversationGroups(agents, shared),
    // The agent is read with the rest of the step's needs; a paired step reads it too (unlocked):
    // the pair's steps run one after the other in its message, so the second reads it after the
    // first one's conversation wrote it.
    needs: (frame, key, shared) => {
      const needs = base.needs!(frame, key, shared);
      const agent = agentKey(scopeOf(frame, key));
      const listed = needs.documents.some((d) => JSON.stringify(d) === JSON.stringify(agent));
      return listed ? needs : { ...needs, documents: [agent, ...needs.documents] };
    },
    unit: async (frame, key, storage) =>
      (await loadAgent(storage ? { storage } : deps, scopeOf(frame, key))).value,
    closeNeeds: (frame) => [worldKey(frame.world.id), ...objectStateDocuments(frame.world.id)],
    encode: (shared): EncodedShared => ({
      env: shared.env,
      roster: storeRoster(shared.roster),
      pairs: [...shared.pairs],
      ...(shared.circles ? { circles: [...shared.circles].map(([d, j]) => [d, [...j]]) } : {}),
      changedObjects: [...shared.changedObjects],
      ...(shared.attention ? { attention: shared.attention } : {}),
      ...(shared.routine ? { routine: [...shared.routine] } : {}),
      ...(shared.gameActions?.length ? { gameActions: [...shared.gameActions] } : {}),
      scores: [...shared.scores],
    }),
    load: (worldId, storage) => loadSeen({ storage }, worldId as WorldId),
    decode: (json, loaded) => {
      const e = json as EncodedShared | EncodedViews;
      const fresh = { scores: new Map(e.scores), decisions, uses: [], leaves: [], talks: [] };
      if ("views" in e) return { ...fresh, ...storedViews(e) };
      const basis: ViewBasis = {
        env: e.env,
        roster: readRoster(e.roster),
        pairs: new Map(e.pairs),
        ...(e.circles ? { circles: new Map(e.circles) } : {}),
        changedObjects: new Set(e.changedObjects),
        ...(e.attention ? { attention: e.attention } : {}),
        ...(e.routine ? { routine: new Set(e.routine) } : {}),
        gameActions: e.gameActions ?? [],
      };
      return { ...fresh, ...basis, views: tickViews(basis, loaded as LastLooks | undefined) };
    },
    merge: (shared, carried) => ({
      ...shared,
      uses: [...shared.uses, ...(carried as StepCarried[]).flatMap((c) => c.uses)],
      leaves: [...shared.leaves, ...(carried as StepCarried[]).flatMap((c) => c.leaves)],
      talks: [...shared.talks, ...(carried as StepCarried[]).flatMap((c) => c.talks ?? [])],
    }),
  };
}

/**
 * The refusal of a tick whose plan would be too large to store, naming what it grows with: the
 * world's agents (some 300 bytes each) and its environment (README, "When things fail").
 */
function worldTooLarge(world: World, size: PlanSize, shared: TickShared): SimulacraError {
  const environmentBytes = new TextEncoder().encode(JSON.stringify(shared.env)).length;
  return new SimulacraError(
    "world_too_large",
    `Cannot tick world "${world.id}": its ${size.units} agents and its environment (${environmentBytes} bytes) make a tick plan of ${size.bytes} bytes, more than the ${size.maxBytes} a tick's plan may take: delete agents or environment objects, or split the world`,
    {
      details: {
        agents: size.units,
        planBytes: size.bytes,
        maxPlanBytes: size.maxBytes,
        environmentBytes,
      },
    },
  );
}

/** The views of a plan stored with every agent's view (before they were worked out in steps). */
function storedViews(
  e: EncodedViews,
): Omit<TickShared, "scores" | "decisions" | "uses" | "leaves" | "talks"> {
  const views = new Map(e.views);
  const pairs = new Map<string, Sighting>();
  for (const [id, view] of views) {
    if (view.trigger && "observed" in view.trigger) pairs.set(id, view.trigger.observed);
  }
  return {
    env: e.env,
    roster: [],
    pairs,
    changedObjects: new Set(),
    views: {
      get: (id) => {
        const view = views.get(id);
        if (view === undefined) throw new Error(`Cannot find the view of agent "${id}"`);
        return view;
      },
    },
  };
}

/**
 * Agents joined when one may start a conversation with the other this tick (it saw the other
 * arrive), with those who would join it (`circles`), transitively; each group in agent order, groups ordered by their first agent, so the
 * plan does not depend on listing order. `pairs` holds each decider's sighting, by its id.
 */
export function conversationGroups(
  agents: readonly Agent[],
  { pairs, circles }: Talks,
): Agent[][] {
  const parent = new Map(agents.map((a) => [a.id as string, a.id as string]));
  const root = (id: string): string => {
    let r = id;
    while (parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  for (const agent of agents) {
    const others = [pairs.get(agent.id)?.observed?.agentId, ...circles?.get(agent.id) ?? []];
    for (const other of others) {
      if (other === undefined || !parent.has(other)) continue;
      const [a, b] = [root(agent.id), root(other)].sort();
      parent.set(b, a);
    }
  }
  const groups = new Map<string, Agent[]>();
  for (const agent of [...agents].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const r = root(agent.id);
    groups.set(r, [...(groups.get(r) ?? []), agent]);
  }
  return [...groups.values()];
}
