/**
 * @module The agent tick's work before the steps: each agent's view of its area (what it attends
 * to: at most the world's `attentionBandwidth` new events), who decides about whom (the pairs),
 * and every new observation scored in one importance call and embedded in one call for all
 * agents together. The pairs' decisions are not made here: the first step of each pair makes its
 * own (`pairDecision`), so a queued tick's plan makes no agent's call. The views are not kept in
 * the plan, only what they are worked out from (`tick_views.ts`).
 */
import {
  addUsage,
  type Agent,
  ATTENTION_BANDWIDTH,
  emptyUsage,
  type Environment,
  isIdle,
  isPlayer,
  joinPath,
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
import { loadGameActions } from "../game_hooks/mod.ts";
import {
  loadObjectOrigins,
  type ObjectLeave,
  type ObjectOrigins,
  type ObjectUse,
  setByAgent,
} from "./object_states.ts";
import { ASLEEP, loadSeen, perceiveArea, type Seeable, type Sighting } from "./perception.ts";
import { PairDecisions, pairNewcomers } from "./_talk_pairs.ts";
import { gatherCircles } from "./_talk_circles.ts";
import {
  changedInView,
  type LastLooks,
  type TickViews,
  tickViews,
  type ViewBasis,
} from "./tick_views.ts";

/** State shared by the phases of one tick. */
export interface TickShared extends ViewBasis {
  /** Each agent's view of its area, worked out from the basis and its last look when asked. */
  views: TickViews;
  /** Importance by observation text (normalised), scored once for every agent. */
  scores: Map<string, number>;
  /**
   * Decisions (and conversations) about a newly seen agent that steps of this invocation made
   * or read back, by the deciding agent's id (see `pairDecision`); never stored in a plan.
   */
  decisions: PairDecisions;
  uses: ObjectUse[];
  leaves: ObjectLeave[];
  /** Conversations the steps held, whose listeners the tick's close lets overhear them. */
  talks: string[];
}

/**
 * Works out every agent's view (to score and embed what they see, and pair who talks to whom)
 * and keeps what the views are worked out from: the steps work out their own again from it
 * (`tick_views.ts`). `loaded` is every agent's last look, what the system's `load` reads.
 */
export async function prepare(
  deps: Deps,
  frame: TickFrame<World>,
  agents: readonly Agent[],
): Promise<{ shared: TickShared; loaded: LastLooks; events: NewEvent[]; usage: Usage }> {
  const worldId = frame.world.id as WorldId;
  const [env, looks, origins, gameActions] = await Promise.all([
    loadEnvironment(deps, worldId),
    loadSeen(deps, worldId),
    loadObjectOrigins(deps, worldId),
    loadGameActions(deps, worldId),
  ]);
  const routine = routineStates(env, origins);
  const attention = {
    bandwidth: frame.world.settings.attentionBandwidth ?? ATTENTION_BANDWIDTH,
    turn: frame.to,
  };
  const attend = { ...attention, routine: (l: string, st: string) => routine.has(`${l}|${st}`) };
  // A player is seen by others but perceives nothing and decides nothing: the game plays it.
  const perceptions = agents.map((agent) =>
    isPlayer(agent) ? { sightings: [], next: {} } : perceiveArea(
      agent,
      { others: agents, env, attention: attend },
      looks.get(agent.id)?.seen ?? {},
    )
  );
  const sightings = perceptions.flatMap((p) => p.sightings);
  const changedObjects = new Set(
    sightings.filter((s) =>
      s.observed === undefined && s.changed && !setByAgent(origins, s.location, s.state)
    ).map((s) => s.subject),
  );
  const objectTriggered = new Set<string>();
  const newcomers = new Map<string, Sighting[]>();
  agents.forEach((agent, i) => {
    const seen = perceptions[i].sightings;
    if (changedInView(seen, changedObjects).length > 0) objectTriggered.add(agent.id);
    newcomers.set(
      agent.id,
      seen.filter((s) => s.observed !== undefined && !s.changed && !ASLEEP.test(s.observed.status)),
    );
  });
  const texts = sightings.map((s) => s.text);
  const scored = await scoreForAll(deps, frame.world, texts);
  const embedded = await embedForAll(deps, frame.world, texts);
  const pairs = await pairNewcomers(deps, frame, { agents, objectTriggered, newcomers });
  const circles = await gatherCircles(deps, frame, { agents, pairs, objectTriggered, env });
  const basis: ViewBasis = {
    env,
    roster: agents.map(seeable),
    pairs,
    ...(circles.size > 0 ? { circles } : {}),
    changedObjects,
    attention,
    routine,
    gameActions,
  };
  return {
    shared: {
      ...basis,
      views: tickViews(basis, looks),
      scores: scored.scores,
      decisions: new PairDecisions(),
      uses: [],
      leaves: [],
      talks: [],
    },
    loaded: looks,
    events: [],
    usage: addUsage(scored.usage, embedded),
  };
}

function seeable({ id, name, location, action }: Agent): Seeable {
  return { id, name, location, action };
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

/** The object states of the world an agent's use set, as `location|state` (routine sights). */
function routineStates(env: Environment | null, origins: ObjectOrigins): Set<string> {
  const routine = new Set<string>();
  for (const area of env?.areas ?? []) {
    for (const sub of area.subAreas) {
      for (const object of sub.objects) {
        const path = joinPath(area.name, sub.name, object.name);
        if (setByAgent(origins, path, object.state)) routine.add(`${path}|${object.state}`);
      }
    }
  }
  return routine;
}
