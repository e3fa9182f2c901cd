/**
 * @module The agent tick's work before the steps: each agent's view of its area (what it attends
 * to: at most the world's `attentionBandwidth` new events), who decides about whom (the pairs),
 * and every new observation scored in one importance call and embedded in one call for all
 * agents together. The pairs' decisions are not made here: the first step of each pair makes its
 * own (`pairDecision`), so a queued tick's plan makes no agent's call.
 */
import {
  addUsage,
  type Agent,
  ATTENTION_BANDWIDTH,
  emptyUsage,
  type Environment,
  isIdle,
  ModelUnavailableError,
  type Usage,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import type { Deps, NewEvent } from "../../ports/mod.ts";
import { embedForAll, scoreForResidents } from "../../mind/mod.ts";
import { type TickFrame } from "../engine/mod.ts";
import { cached, loadCache, remember, saveCache } from "./_bounded_cache.ts";
import { loadEnvironment } from "../world/mod.ts";
import {
  loadObjectOrigins,
  type ObjectLeave,
  type ObjectUse,
  setByAgent,
} from "./object_states.ts";
import {
  ASLEEP,
  type Attention,
  loadSeen,
  perceiveArea,
  type Perception,
  type Seen,
  type Sighting,
} from "./perception.ts";
import { type PairedReaction, pairNewcomers } from "./_talk_pairs.ts";

/** What one agent will do with what it sees this tick. */
export interface TickView {
  perception: Perception;
  /** What it saw at its last look, and that document's version. */
  seen: Seen;
  seenVersion: number | undefined;
  /** What the agent decides about: a newly seen agent, or objects whose state someone changed. */
  trigger?: { observed: Sighting } | { objects: Sighting[] };
}

/** State shared by the phases of one tick. */
export interface TickShared {
  env: Environment | null;
  views: Map<string, TickView>;
  /** Importance by observation text (normalised), scored once for every agent. */
  scores: Map<string, number>;
  /**
   * Decisions (and conversations) about a newly seen agent that steps of this invocation made
   * or read back, by the deciding agent's id (see `pairDecision`); never stored in a plan.
   */
  decisions: Map<string, Promise<PairedReaction>>;
  uses: ObjectUse[];
  leaves: ObjectLeave[];
}

export async function prepare(
  deps: Deps,
  frame: TickFrame<World>,
  agents: readonly Agent[],
): Promise<{ shared: TickShared; events: NewEvent[]; usage: Usage }> {
  const worldId = frame.world.id as WorldId;
  const [env, seen, origins] = await Promise.all([
    loadEnvironment(deps, worldId),
    loadSeen(deps, worldId),
    loadObjectOrigins(deps, worldId),
  ]);
  const attention: Attention = {
    bandwidth: frame.world.settings.attentionBandwidth ?? ATTENTION_BANDWIDTH,
    routine: (location, state) => setByAgent(origins, location, state),
    turn: frame.to,
  };
  const views = new Map<string, TickView>();
  const newcomers = new Map<string, Sighting[]>();
  for (const agent of agents) {
    const before = seen.get(agent.id);
    const seenBefore = before?.seen ?? {};
    const perception = perceiveArea(agent, { others: agents, env, attention }, seenBefore);
    const external = (s: Sighting) =>
      s.observed === undefined && s.changed && !setByAgent(origins, s.location, s.state);
    const changedObjects = perception.sightings.filter(external);
    newcomers.set(
      agent.id,
      perception.sightings.filter((s) =>
        s.observed !== undefined && !s.changed && !ASLEEP.test(s.observed.status)
      ),
    );
    views.set(agent.id, {
      perception,
      seen: seenBefore,
      seenVersion: before?.version,
      trigger: changedObjects.length > 0 ? { objects: changedObjects } : undefined,
    });
  }
  const texts = [...views.values()].flatMap((v) => v.perception.sightings.map((s) => s.text));
  const scored = await scoreForAll(deps, frame.world, texts);
  const embedded = await embedForAll(deps, frame.world, texts);
  const pairs = await pairNewcomers(deps, frame, { agents, views, newcomers });
  for (const [decider, sighting] of pairs) {
    views.set(decider, { ...views.get(decider)!, trigger: { observed: sighting } });
  }
  return {
    shared: { env, views, scores: scored.scores, decisions: new Map(), uses: [], leaves: [] },
    events: [],
    usage: addUsage(scored.usage, embedded),
  };
}

/** Observation texts compared case- and space-insensitively (as perceive's dedupe does). */
export function textKey(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ").slice(0, 500);
}

/** Importance scores kept per world, by observation text; the oldest go first. */
const IMPORTANCE_CACHE_SIZE = 1000;

/**
 * Scores every distinct observation text of the tick in one fast-model call, as it would matter
 * to a resident of the world: idle texts get 1 and texts scored in earlier ticks their cached
 * score, without a call. When the model is unavailable the scores stay unknown and each agent's
 * perceive scores its own texts (or marks them pending).
 */
async function scoreForAll(
  deps: Pick<Deps, "model" | "storage">,
  world: World,
  texts: readonly string[],
): Promise<{ scores: Map<string, number>; usage: Usage }> {
  const scores = new Map<string, number>();
  if (texts.length === 0) return { scores, usage: emptyUsage() };
  const cache = await loadCache<number>(deps, {
    collection: "importance",
    scope: world.id,
    id: "scores",
  });
  const todo = new Map<string, string>();
  for (const text of texts) {
    const key = textKey(text);
    if (scores.has(key) || todo.has(key)) continue;
    const known = isIdle(text) ? 1 : cached(cache, key);
    if (known !== undefined) scores.set(key, known);
    else todo.set(key, text);
  }
  if (todo.size === 0) return { scores, usage: emptyUsage() };
  try {
    const scored = await scoreForResidents(deps, world, [...todo.values()]);
    const answered = [...todo.keys()].map((key, i) => [key, scored.scores[i]] as const);
    for (const [key, score] of answered) scores.set(key, score);
    await saveCache(deps, remember(cache, answered, IMPORTANCE_CACHE_SIZE));
    return { scores, usage: scored.usage };
  } catch (err) {
    if (err instanceof ModelUnavailableError) return { scores, usage: emptyUsage() };
    throw err;
  }
}
