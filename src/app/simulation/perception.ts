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

/** What limits and ranks what an agent attends to. */
export interface Attention {
  /** The most things in its surroundings it attends to (world `attentionBandwidth`). */
  bandwidth: number;
  /**
   * True for an object state that an agent's use of the object set (a routine sight, less
   * salient than a state something else changed, such as a fire).
   */
  routine?: (location: string, state: string) => boolean;
  /**
   * The look this is (a tick's time): among equals, whom the agent notices changes from look to
   * look, as people move about a room, so over a few looks it notices a crowd one by one.
   */
  turn?: string;
}

/**
 * Perceives what `observer` sees from where it stands: every other agent in the same area with
 * its action, and every object of that area with its state. Returns no sightings, and the old
 * `seen` unchanged, while the observer is asleep or nowhere; otherwise sightings for what entered
 * its view (with a non-blank action or state) or changed since, and the new `seen`.
 *
 * With `attention`, it attends to at most `attention.bandwidth` of the things in view, most
 * salient first (an object whose state something other than an agent's use changed, such as a
 * fire; then awake agents; then objects; sleepers last), nearest first among equals (at the same
 * object, in the same sub-area, elsewhere in the area), and perceives what is new among those
 * only: a crowded room is a few people to it, not fifteen events a tick. The object its own
 * action uses and another agent's action naming it always count, beyond the bandwidth. What it
 * did not attend to keeps its old entry in `seen`, so it is new whenever it is attended to.
 * @see Generative Agents §5 "Perception per tick = actions of agents and object states in the
 * same area"; the reference implementation's `att_bandwidth` (3): the nearest events only.
 */
export function perceiveArea(
  observer: Seeable,
  { others, env, attention }: {
    others: readonly Seeable[];
    env: Environment | null;
    attention?: Attention;
  },
  seen: Seen,
): Perception {
  if (observer.location === null || ASLEEP.test(observer.action ?? "")) {
    return { sightings: [], next: seen };
  }
  const next: Seen = {};
  const inView: Sighting[] = [];
  const look = (
    subject: string,
    value: string,
    sighting: Omit<Sighting, "subject" | "changed" | "state">,
  ) => {
    // An agent without an action (just placed) is not seen yet: its first action is news.
    if (value !== "" || sighting.observed === undefined) next[subject] = value;
    if (value === "") return;
    inView.push({ subject, ...sighting, state: value, changed: seen[subject] !== undefined });
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
  const attended = attention === undefined ? inView : attend(observer, inView, { attention, seen });
  for (const s of inView) {
    if (attended.includes(s)) continue;
    // Not attended to: as it was at the last look, so it is new whenever it is attended to.
    if (seen[s.subject] === undefined) delete next[s.subject];
    else next[s.subject] = seen[s.subject];
  }
  return { sightings: attended.filter((s) => seen[s.subject] !== s.state), next };
}

/** Path parts compared case-insensitively. */
function parts(path: string): string[] {
  return path.split(":").map((p) => p.trim().toLowerCase());
}

/** 0 at the same object (or spot), 1 in the same sub-area, 2 elsewhere in the area. */
function distance(from: string, to: string): number {
  const [a, b] = [parts(from), parts(to)];
  if (a.length === b.length && a.every((p, i) => p === b[i])) return 0;
  return a[1] !== undefined && a[1] === b[1] ? 1 : 2;
}

/**
 * The things in view the observer attends to, in view order: those that always count, and the
 * `bandwidth` most salient and nearest of the rest. Equals are taken in an order of their own
 * per observer and look (a hash of its id, the subject and `turn`), so a crowd is not seen by
 * everyone through the same three people, nor always through the same ones.
 */
function attend(
  observer: Seeable,
  inView: Sighting[],
  { attention, seen }: { attention: Attention; seen: Seen },
): Sighting[] {
  const here = observer.location!;
  const always = (s: Sighting) =>
    s.observed ? names(s.state, observer.name) : distance(here, s.location) === 0;
  const salience = (s: Sighting): number => {
    if (s.observed) return ASLEEP.test(s.state) ? 0 : 2;
    const changed = seen[s.subject] !== undefined && seen[s.subject] !== s.state;
    return changed && !(attention.routine?.(s.location, s.state) ?? false) ? 3 : 1;
  };
  const ranked = inView
    .filter((s) => !always(s))
    .map((s) => ({
      s,
      key: [
        -salience(s),
        distance(here, s.location),
        spread(`${observer.id}|${s.subject}|${attention.turn ?? ""}`),
      ],
    }))
    .sort((x, y) => x.key[0] - y.key[0] || x.key[1] - y.key[1] || x.key[2] - y.key[2])
    .slice(0, Math.max(0, attention.bandwidth))
    .map((r) => r.s);
  const kept = new Set([...inView.filter(always), ...ranked]);
  return inView.filter((s) => kept.has(s));
}

/** A 32-bit string hash (djb2), to order equals the same way every tick. */
function spread(text: string): number {
  let h = 5381;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 33) + text.charCodeAt(i)) >>> 0;
  return h;
}

/** Whether `text` names the agent: its full name, or its first name as a word. */
function names(text: string, name: string): boolean {
  const lower = text.toLowerCase();
  const first = name.trim().split(/\s+/)[0].toLowerCase();
  return lower.includes(name.toLowerCase()) || lower.split(/[^\p{L}-]+/u).includes(first);
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
