/**
 * @module Who talks to whom in a tick, decided before the steps in agent-id order, and the model
 * wrapper that passes the world's seed: what makes a tick replay the same at any concurrency.
 */
import { type Agent, loadAgent } from "../agents/agent.ts";
import { readConversationState } from "../cognition/conversation_state.ts";
import type { PlanMade } from "../cognition/plan.ts";
import { decideReaction, type ReactionResult } from "../cognition/reaction.ts";
import type { Deps } from "../deps.ts";
import { mapBounded } from "../engine/pool.ts";
import type { TickFrame } from "../engine/tick_engine.ts";
import type { AgentId, AgentScope, WorldId } from "../ids.ts";
import { gameMinutes } from "../time/game_time.ts";
import type { World } from "../world/world.ts";
import type { Sighting } from "./perception.ts";

/** For worlds stored before `talkCooldownMinutes` existed. */
const DEFAULT_TALK_COOLDOWN = 120;

/** What an agent decides about this tick: a newly seen agent, or objects someone changed. */
export interface Triggered {
  trigger?: { observed: Sighting } | { objects: Sighting[] };
}

/** A decision about a newly seen agent, made before the steps; `error` when it failed. */
export interface PairedReaction {
  result?: ReactionResult & { plans: PlanMade[] };
  error?: unknown;
}

/** Deps whose model calls carry the world's seed (the offline model keys its choices by it). */
export function withSeed(deps: Deps, seed: number | undefined): Deps {
  if (seed === undefined) return deps;
  const model = deps.model;
  return {
    ...deps,
    model: {
      info: model.info,
      complete: (prompt, attribution) => model.complete(prompt, { ...attribution, seed }),
      ...(model.stream === undefined ? {} : {
        stream: (prompt, attribution, options) =>
          model.stream!(prompt, { ...attribution, seed }, options),
      }),
    },
  };
}

/** Agent ids in code-unit order, the order every per-tick choice follows. */
export function byAgent(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Picks who decides about whom this tick, in agent-id order so the choice never depends on which
 * step runs first: each agent without an object trigger takes the first newcomer in its view who
 * is not already taken, and neither talked within the world's `talkCooldownMinutes`. Both are
 * then taken: nobody is in two decisions, and two agents who see each other arrive decide once.
 */
export async function pairNewcomers(
  deps: Pick<Deps, "storage">,
  frame: TickFrame<World>,
  agents: readonly Agent[],
  views: ReadonlyMap<string, Triggered>,
  newcomers: ReadonlyMap<string, Sighting[]>,
): Promise<{ agent: Agent; observed: Sighting }[]> {
  const taken = new Set<string>();
  const lately = new Map<string, boolean>();
  const talked = async (id: AgentId) => {
    let known = lately.get(id);
    if (known === undefined) {
      known = await talkedLately(deps, frame, id);
      lately.set(id, known);
    }
    return known;
  };
  const pairs: { agent: Agent; observed: Sighting }[] = [];
  for (const agent of [...agents].sort((a, b) => byAgent(a.id, b.id))) {
    const view = views.get(agent.id)!;
    if (view.trigger !== undefined || taken.has(agent.id)) continue;
    const seenNow = newcomers.get(agent.id) ?? [];
    if (seenNow.length === 0 || await talked(agent.id)) continue;
    for (const sighting of seenNow) {
      const other = sighting.observed!.agentId;
      if (taken.has(other) || await talked(other)) continue;
      view.trigger = { observed: sighting };
      taken.add(agent.id);
      taken.add(other);
      pairs.push({ agent, observed: sighting });
      break;
    }
  }
  return pairs;
}

/**
 * Decides about every pair's newcomer (and holds the conversations that follow) before the
 * steps, pairs at once up to the tick's concurrency. A pair touches only its two agents, so
 * the outcome does not depend on how the pairs or the steps interleave.
 */
export async function decidePairs(
  deps: Deps,
  frame: TickFrame<World>,
  pairs: readonly { agent: Agent; observed: Sighting }[],
): Promise<Map<string, PairedReaction>> {
  const d = withSeed(deps, frame.world.settings.seed);
  const decided = await mapBounded(
    pairs,
    frame.concurrency,
    async ({ agent, observed }): Promise<PairedReaction> => {
      const scope: AgentScope = { worldId: frame.world.id as WorldId, agentId: agent.id };
      try {
        const fresh = (await loadAgent(d, scope)).value;
        const result = await decideReaction(d, { world: frame.world, agent: fresh, at: frame.to }, {
          observations: [observed.text],
          observed: observed.observed!,
        });
        return { result };
      } catch (error) {
        return { error };
      }
    },
  );
  return new Map(pairs.map((p, i) => [p.agent.id, decided[i]]));
}

/**
 * Whether the agent talked with anyone within the world's `talkCooldownMinutes` (or is still
 * talking): then no conversation starts and no model call decides about one. The pair cooldown
 * of the reaction vetoes stops two agents talking again; this one stops an agent from talking
 * to everyone who walks by, the largest cost of a busy town (SPEC §9).
 */
async function talkedLately(
  deps: Pick<Deps, "storage">,
  frame: TickFrame<World>,
  agentId: AgentId,
): Promise<boolean> {
  const cooldown = frame.world.settings.talkCooldownMinutes ?? DEFAULT_TALK_COOLDOWN;
  if (cooldown <= 0) return false;
  const state = await readConversationState(deps, frame.world, agentId);
  return state !== null && gameMinutes(frame.to) - gameMinutes(state.until) < cooldown;
}
