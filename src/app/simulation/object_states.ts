/**
 * @module Objects agents act on change state: one batched fast-model call per tick for every
 * object whose user started a new action there, a cache of answers already known, and the
 * object left as it was found when its user walks away (Generative Agents §4.3, §5).
 */
import { z } from "zod";
import type { Deps, DocumentKey, NewEvent } from "../../ports/mod.ts";
import {
  type AgentId,
  emptyUsage,
  type GameTime,
  ModelUnavailableError,
  type ObjectStateItem,
  resolvePath,
  type Usage,
  type WorldId,
} from "../../domain/mod.ts";
import { objectStates } from "../../mind/mod.ts";
import { cached, loadCache, remember, saveCache } from "./_bounded_cache.ts";
import { environmentKey, loadEnvironment, putDocument, setObjectStates } from "../world/mod.ts";

/**
 * Who set each object's current state: path → the state and the agent whose action set it.
 * An object whose state differs from its entry was changed since by someone else (a user).
 */
export const ObjectOrigins = z.record(
  z.string(),
  z.object({ state: z.string(), agentId: z.string() }),
);
export type ObjectOrigins = z.infer<typeof ObjectOrigins>;

/** Answers kept per world, by object path and action; the oldest go first. */
const CACHE_SIZE = 500;

/** An agent that started a new action at an object this tick. */
export interface ObjectUse {
  agentId: AgentId;
  agentName: string;
  /** `Area:Sub-area:Object`. */
  path: string;
  action: string;
}

/** An agent that walked away from the object it was at. */
export interface ObjectLeave {
  agentId: AgentId;
  path: string;
}

function originsKey(worldId: string): DocumentKey {
  return { collection: "object_states", scope: worldId, id: "origins" };
}

function cacheKey(worldId: string): DocumentKey {
  return { collection: "object_states", scope: worldId, id: "answers" };
}

/** The documents {@linkcode applyObjectStates} reads (and may write), to read them up front. */
export function objectStateDocuments(worldId: string): DocumentKey[] {
  return [environmentKey(worldId), cacheKey(worldId), originsKey(worldId)];
}

/** Who set which object's state; empty when no agent ever did. */
export async function loadObjectOrigins(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<ObjectOrigins> {
  return (await deps.storage.documents.get<ObjectOrigins>(originsKey(worldId)))?.value ?? {};
}

/** Whether an object's state is the one an agent's action set (not a user's change). */
export function setByAgent(origins: ObjectOrigins, path: string, state: string): boolean {
  return origins[path]?.state === state;
}

/**
 * Applies the tick's object uses and leaves: each object used gets the state the model gives
 * for its user's action (one fast-model call for every object not answered before; the first
 * user by id decides when several share an object), written with the environment's
 * version-checked replace; an object left behind goes back to "" when it still shows the state
 * its user's action set. A model failure leaves the objects as they are and is reported as a
 * `tick_error` event.
 * @throws `store_unavailable`
 */
export async function applyObjectStates(
  deps: Pick<Deps, "storage" | "model">,
  worldId: WorldId,
  { at, uses, leaves }: {
    at: GameTime;
    uses: readonly ObjectUse[];
    leaves: readonly ObjectLeave[];
  },
): Promise<{ events: NewEvent[]; usage: Usage }> {
  const events: NewEvent[] = [];
  let usage = emptyUsage();
  if (uses.length === 0 && leaves.length === 0) return { events, usage };
  const env = await loadEnvironment(deps, worldId);
  if (!env) return { events, usage };

  const byPath = new Map<string, { use: ObjectUse; item: ObjectStateItem }>();
  for (const use of [...uses].sort((a, b) => (a.agentId < b.agentId ? -1 : 1))) {
    const found = resolvePath(env, use.path);
    if (!found?.object || byPath.has(found.path)) continue;
    byPath.set(found.path, {
      use: { ...use, path: found.path },
      item: {
        object: found.object.name,
        place: `${found.area.name}, ${found.subArea!.name}`,
        state: found.object.state,
        agentName: use.agentName,
        action: use.action,
      },
    });
  }

  const answersCache = await loadCache<string>(deps, cacheKey(worldId));
  const keyOf = (use: ObjectUse) =>
    `${use.path.toLowerCase()}|${use.action.trim().toLowerCase().replace(/\s+/g, " ")}`;
  const answers = new Map<string, string>();
  const unknown = [...byPath.entries()].filter(([path, { use }]) => {
    const known = cached(answersCache, keyOf(use));
    if (known !== undefined) answers.set(path, known);
    return known === undefined;
  });
  if (unknown.length > 0) {
    try {
      const answered = await objectStates(deps, unknown.map(([, { item }]) => item), worldId);
      usage = answered.usage;
      unknown.forEach(([path], i) => answers.set(path, answered.states[i]));
      const learnt = unknown.map(([, { use }], i) => [keyOf(use), answered.states[i]] as const);
      await saveCache(deps, remember(answersCache, learnt, CACHE_SIZE));
    } catch (err) {
      if (!(err instanceof ModelUnavailableError)) throw err;
      events.push({
        type: "tick_error",
        at,
        phase: "object_state",
        code: err.code,
        error: err.message,
      });
    }
  }

  const originsDoc = await deps.storage.documents.get<ObjectOrigins>(originsKey(worldId));
  const origins: ObjectOrigins = { ...originsDoc?.value };
  let originsChanged = false;
  const writes: { path: string; state: string; previous: string; agentId: AgentId }[] = [];
  type Write = (typeof writes)[number];
  const write = ({ path, state, previous, agentId }: Write) => {
    writes.push({ path, state, previous, agentId });
    events.push({ type: "object_state", at, agentId, path, state, previous });
  };
  for (const [path, state] of answers) {
    const { use, item } = byPath.get(path)!;
    if (state === item.state) continue;
    write({ path, state, previous: item.state, agentId: use.agentId });
    origins[path] = { state, agentId: use.agentId };
    originsChanged = true;
  }
  for (const leave of leaves) {
    const found = resolvePath(env, leave.path);
    if (!found?.object || byPath.has(found.path)) continue;
    const origin = origins[found.path];
    if (origin?.agentId !== leave.agentId || origin.state !== found.object.state) continue;
    if (found.object.state !== "") {
      write({ path: found.path, state: "", previous: found.object.state, agentId: leave.agentId });
    }
    delete origins[found.path];
    originsChanged = true;
  }
  // Every change in one write of the environment, then the origins that explain them.
  if (writes.length > 0) await setObjectStates(deps, worldId, writes);
  if (originsChanged) {
    await putDocument(deps, originsKey(worldId), {
      value: origins,
      version: originsDoc?.version,
    });
  }
  return { events, usage };
}
