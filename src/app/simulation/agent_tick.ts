/**
 * @module The agent tick system: the behaviour of `agent_step.ts` with how its steps travel, in
 * process or through the queue alike. Agents paired to talk this tick
 * (one saw the other arrive) are one message, so no step waits on another's lock, and the pair's
 * decision and conversation run in that message, in its first step (`pairDecision`), not while
 * the tick is planned. The shared preparation (views with who is paired with whom, and scores)
 * travels as JSON in the tick's plan, and the objects each step put to use come back for the
 * close.
 */
import type { Agent, AgentId, AgentScope, Environment, World, WorldId } from "../../domain/mod.ts";
import { agentKey, loadAgent } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import type { TickFrame, TickSystem } from "../engine/mod.ts";
import { worldKey } from "../world/mod.ts";
import { agentSteps, type AgentTickOptions, type StepCarried } from "./agent_step.ts";
import type { AgentStepSummary } from "./step_summary.ts";
import { objectStateDocuments } from "./object_states.ts";
import type { TickShared, TickView } from "./tick_prepare.ts";
import { PairDecisions } from "./_talk_pairs.ts";

interface EncodedShared {
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
    groups: (_frame, agents, shared) => conversationGroups(agents, shared.views),
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
      views: [...shared.views],
      scores: [...shared.scores],
    }),
    decode: (json) => {
      const e = json as EncodedShared;
      return {
        env: e.env,
        views: new Map(e.views),
        scores: new Map(e.scores),
        decisions,
        uses: [],
        leaves: [],
      };
    },
    merge: (shared, carried) => ({
      ...shared,
      uses: [...shared.uses, ...(carried as StepCarried[]).flatMap((c) => c.uses)],
      leaves: [...shared.leaves, ...(carried as StepCarried[]).flatMap((c) => c.leaves)],
    }),
  };
}

/**
 * Agents joined when one may start a conversation with the other this tick (it saw the other
 * arrive), transitively; each group in agent order, groups ordered by their first agent, so the
 * plan does not depend on listing order.
 */
export function conversationGroups(
  agents: readonly Agent[],
  views: ReadonlyMap<string, TickView>,
): Agent[][] {
  const parent = new Map(agents.map((a) => [a.id as string, a.id as string]));
  const root = (id: string): string => {
    let r = id;
    while (parent.get(r) !== r) r = parent.get(r)!;
    return r;
  };
  for (const agent of agents) {
    const trigger = views.get(agent.id)?.trigger;
    const other = trigger && "observed" in trigger ? trigger.observed.observed?.agentId : undefined;
    if (other === undefined || !parent.has(other)) continue;
    const [a, b] = [root(agent.id), root(other)].sort();
    parent.set(b, a);
  }
  const groups = new Map<string, Agent[]>();
  for (const agent of [...agents].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    const r = root(agent.id);
    groups.set(r, [...(groups.get(r) ?? []), agent]);
  }
  return [...groups.values()];
}
