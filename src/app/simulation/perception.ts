/**
 * @module What an agent sees in a tick: other agents' actions and object states in its area
 * (its "visual range"), minus what it already saw and what did not change (Generative Agents §5).
 */
import { z } from "zod";
import {
  type Agent,
  type AgentId,
  type AgentScope,
  areaOfPath,
  type Environment,
  findArea,
  joinPath,
  type WorldId,
} from "../../domain/mod.ts";
import type { Deps, DocumentKey } from "../../ports/mod.ts";
import { putDocument } from "../world/mod.ts";

/**
 * What an agent saw in its area at its last look: subject → what it saw (an agent's action, an
 * object's state, "" for a blank one). Subjects are `a:<agentId>` and `o:<Area:Sub-area:Object>`.
 * Subjects that left its view are forgotten, so seeing them again is new.
 */
export const Seen = z.record(z.string(), z.string());
export type Seen = z.infer<typeof Seen>;

/** An agent as the others see it in a tick: who, where, doing what. */
export type Seeable = Pick<Agent, "id" | "name" | "location" | "action">;

/** A thing in view this tick that the agent had not seen like this before. */
export interface Sighting {
  subject: string;
  /** The observation text, e.g. "Klaus Mueller is reading a book". */
  text: string;
  /** Where the subject is. */
  location: string;
  /** The object's state or the agent's action, as seen. */
  state: string;
  /** The agent seen, for a reaction; absent for objects. */
  observed?: { agentId: AgentId; name: string; status: string };
  /** It was in view last time too, with another action or state. */
  changed: boolean;
}

/** What an agent perceives this tick and what it will remember having seen. */
export interface Perception {
  sightings: Sighting[];
  next: Seen;
}

/** Actions that mean the agent is asleep: it perceives nothing and is not worth reacting to. */
export const ASLEEP = /sleep|\bnap(?:ping)?\b/i;

function sameArea(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && areaOfPath(a).toLowerCase() === areaOfPath(b).toLowerCase();
}

/**
 * What `observer` sees from where it stands: every other agent in the same area with its
 * action, and every object of that area with its state. Returns no sightings, and the old
 * `seen` unchanged, while the observer is asleep or nowhere; otherwise sightings for what entered
 * its view (with a non-blank action or state) or changed since, and the new `seen`.
 * @see Generative Agents §5 "Perception per tick = actions of agents and object states in the same area".
 */
export function perceiveArea(
  observer: Seeable,
  { others, env }: { others: readonly Seeable[]; env: Environment | null },
  seen: Seen,
): Perception {
  if (observer.location === null || ASLEEP.test(observer.action ?? "")) {
    return { sightings: [], next: seen };
  }
  const next: Seen = {};
  const sightings: Sighting[] = [];
  const look = (
    subject: string,
    value: string,
    sighting: Omit<Sighting, "subject" | "changed" | "state">,
  ) => {
    next[subject] = value;
    const before = seen[subject];
    if (before === value || value === "") return;
    sightings.push({ subject, ...sighting, state: value, changed: before !== undefined });
  };
  for (const other of others) {
    if (other.id === observer.id || !sameArea(observer.location, other.location)) continue;
    const status = other.action ?? "";
    look(`a:${other.id}`, status, {
      text: `${other.name} is ${status}`,
      location: other.location!,
      observed: { agentId: other.id, name: other.name, status },
    });
  }
  const area = env ? findArea(env, areaOfPath(observer.location)) : undefined;
  for (const sub of area?.subAreas ?? []) {
    for (const object of sub.objects) {
      const path = joinPath(area!.name, sub.name, object.name);
      look(`o:${path}`, object.state, {
        text: `the ${object.name} in the ${sub.name} of ${area!.name} is ${object.state}`,
        location: path,
      });
    }
  }
  return { sightings, next };
}

/** Where what an agent saw at its last look is stored. */
export function seenKey(worldId: string, agentId: string): DocumentKey {
  return { collection: "perception", scope: worldId, id: agentId };
}

/** What every agent of a world saw at its last look, by agent id (one list call). */
export async function loadSeen(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
): Promise<Map<string, { seen: Seen; version: number }>> {
  const docs = await deps.storage.documents.list<Seen>("perception", worldId);
  return new Map(docs.map((d) => [d.id, { seen: d.value, version: d.version }]));
}

/** Stores what the agent saw, over the version {@linkcode loadSeen} read. */
export async function saveSeen(
  deps: Pick<Deps, "storage">,
  { worldId, agentId }: AgentScope,
  { seen, version }: { seen: Seen; version: number | undefined },
): Promise<void> {
  await putDocument(deps, seenKey(worldId, agentId), { value: seen, version });
}
