/**
 * @module The agent tick behaviour made ready for the queue: agents paired to talk this tick
 * (one saw the other arrive) are one message, so no step waits on another's lock; the shared
 * preparation (views, scores, and the pairs' decisions made in agent-id order before the steps,
 * as the in-process tick makes them) travels as JSON in the tick's plan, and the objects each
 * step put to use come back for the close.
 */
import { type Agent, loadAgent } from "../agents/agent.ts";
import type { Deps } from "../deps.ts";
import type { AgentId, WorldId } from "../ids.ts";
import type { QueuedTickSystem } from "../engine/queued_tick.ts";
import type { World } from "../world/world.ts";
import { type AgentStepSummary, type AgentTickOptions, agentTickSystem } from "./agent_step.ts";
import type { ObjectLeave, ObjectUse } from "./object_states.ts";
import type { AgentView, TickShared } from "./tick_prepare.ts";
import type { PairedReaction } from "./_talk_pairs.ts";
import type { Environment } from "../world/environment.ts";
import { errorFields } from "../engine/tick_engine.ts";
import { type ErrorCode, SimulacraError } from "../errors.ts";

/** A pair's decision as JSON: its result, or the error the deciding agent's step reports. */
interface EncodedPaired {
  result?: PairedReaction["result"];
  error?: { code: ErrorCode; message: string };
}

interface EncodedShared {
  env: Environment | null;
  views: [string, AgentView][];
  scores: [string, number][];
  paired: [string, EncodedPaired][];
}

interface Carried {
  uses: ObjectUse[];
  leaves: ObjectLeave[];
}

/** {@linkcode agentTickSystem} with what the queued engine needs. */
export function queuedAgentTickSystem(
  deps: Deps,
  options: AgentTickOptions = {},
): QueuedTickSystem<Agent, TickShared, AgentStepSummary, World> {
  return {
    ...agentTickSystem(deps, options),
    groups: (_frame, agents, shared) => conversationGroups(agents, shared.views),
    unit: async (frame, key) =>
      (await loadAgent(deps, { worldId: frame.world.id as WorldId, agentId: key as AgentId }))
        .value,
    encode: (shared): EncodedShared => ({
      env: shared.env,
      views: [...shared.views],
      scores: [...shared.scores],
      paired: [...shared.paired].map(([id, p]) => [id, encodePaired(p)]),
    }),
    decode: (json) => {
      const e = json as EncodedShared;
      return {
        env: e.env,
        views: new Map(e.views),
        scores: new Map(e.scores),
        paired: new Map(e.paired.map(([id, p]) => [id, decodePaired(p)])),
        uses: [],
        leaves: [],
      };
    },
    carried: (shared): Carried => ({ uses: shared.uses, leaves: shared.leaves }),
    merge: (shared, carried) => {
      for (const c of carried as Carried[]) {
        shared.uses.push(...c.uses);
        shared.leaves.push(...c.leaves);
      }
    },
  };
}

function encodePaired(paired: PairedReaction): EncodedPaired {
  if (paired.error === undefined) return { result: paired.result };
  const { code, error } = errorFields(paired.error);
  return { error: { code, message: error } };
}

function decodePaired(paired: EncodedPaired): PairedReaction {
  return paired.error === undefined
    ? { result: paired.result }
    : { error: new SimulacraError(paired.error.code, paired.error.message) };
}

/**
 * Agents joined when one may start a conversation with the other this tick (it saw the other
 * arrive), transitively; each group in agent order, groups ordered by their first agent, so the
 * plan does not depend on listing order.
 */
export function conversationGroups(
  agents: readonly Agent[],
  views: ReadonlyMap<string, AgentView>,
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
