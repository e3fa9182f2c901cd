/**
 * @module Overhearing: agents in the same sub-area as a conversation (the same location string
 * when the world has no environment tree) who are not in it catch some of its lines, within
 * their attention bandwidth, and remember them as `overheard:<speaker>` with a lower confidence
 * than being told. What they overheard is news they may pass on in their own talks.
 */
import {
  addUsage,
  type Agent,
  type AgentId,
  type AgentScope,
  ATTENTION_BANDWIDTH,
  chatMemoryId,
  type Conversation,
  emptyUsage,
  type Environment,
  isPlayer,
  type MemoryId,
  type Usage,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import { listAgents } from "../agents/mod.ts";
import { type NewMemory, prepareMemories, writeMemories } from "../memory/mod.ts";
import { loadEnvironment } from "../world/mod.ts";
import { SLEEPING } from "./_reaction_veto.ts";
import { joinNames } from "./conversation_writes.ts";

/** The confidence of an overheard memory; told and witnessed ones have none (1). */
export const OVERHEARD_CONFIDENCE = 0.5;

/**
 * Who may overhear a talk among `people` held where its initiator stands now: awake agents (not
 * players) of the world in the same sub-area who are not participants, in id order. None for an
 * initiator who is nowhere.
 */
export async function nearbyListeners(
  deps: Pick<Deps, "storage">,
  world: World,
  { people }: { people: readonly Agent[] },
): Promise<AgentId[]> {
  const where = people[0].location;
  if (where === null) return [];
  const [agents, env] = await Promise.all([
    listAgents(deps, world.id as WorldId),
    loadEnvironment(deps, world.id as WorldId),
  ]);
  return awakeAround(agents, { where, env, exclude: people.map((p) => p.id) });
}

/**
 * The awake agents (not players) standing where `where` is, but those in `exclude`, in id
 * order: the same sub-area ({@linkcode samePlace}).
 */
export function awakeAround(
  agents: readonly Pick<Agent, "id" | "location" | "action" | "kind">[],
  { where, env, exclude }: { where: string; env: Environment | null; exclude: readonly string[] },
): AgentId[] {
  return agents
    .filter((a) =>
      !exclude.includes(a.id) && !isPlayer(a) && a.location !== null &&
      samePlace(a.location, where, env) && !SLEEPING.test(a.action ?? "")
    )
    .map((a) => a.id)
    .sort();
}

/**
 * Whether two locations are one place to talk in: the same sub-area (`Area:Sub-area`) of the
 * environment, or the same location string in a world without one (case and spaces aside).
 */
export function samePlace(a: string, b: string, env: Environment | null): boolean {
  const place = (location: string) => {
    const parts = location.split(":").map((p) => p.trim().toLowerCase());
    return (env === null ? parts : parts.slice(0, 2)).join(":");
  };
  return place(a) === place(b);
}

/** Who may overhear a talk: those the caller chose (`options.listeners`), else those nearby now. */
export async function listenersOf(
  deps: Pick<Deps, "storage">,
  world: World,
  { people, options }: {
    people: readonly Agent[];
    options: { private?: boolean; listeners?: AgentId[] };
  },
): Promise<AgentId[]> {
  if (options.private) return [];
  if (options.listeners !== undefined) return [...options.listeners];
  return await nearbyListeners(deps, world, { people });
}

/**
 * The lines a listener catches: every line naming it, then the `bandwidth` most important of
 * the rest (earlier first among equals), in the order they were said.
 */
export function caughtLines(
  listener: Pick<Agent, "name">,
  lines: readonly { text: string }[],
  { importance, bandwidth }: { importance: readonly number[]; bandwidth: number },
): number[] {
  const first = listener.name.split(/\s+/)[0].toLowerCase();
  const named = (text: string) =>
    text.toLowerCase().includes(listener.name.toLowerCase()) ||
    text.toLowerCase().split(/[^\p{L}-]+/u).includes(first);
  const always = lines.map((_, i) => i).filter((i) => named(lines[i].text));
  const rest = lines.map((_, i) => i).filter((i) => !always.includes(i))
    .sort((a, b) => importance[b] - importance[a] || a - b)
    .slice(0, Math.max(0, bandwidth));
  return [...always, ...rest].sort((a, b) => a - b);
}

/**
 * Writes what each of the conversation's `listeners` overheard: the lines it catches, as
 * `overheard:<speaker>` chat memories with {@linkcode OVERHEARD_CONFIDENCE} and the speaker's
 * importance less one (no model call; one embedding call per listener). Ids are keyed by the
 * conversation and line, so writing again (a retried tick) adds only what is missing. A listener
 * deleted meanwhile is skipped. Not fenced: a listener is not locked by the talk.
 */
export function storeOverheard(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  world: World,
  conversation: Conversation,
): Promise<Usage> {
  return storeAllOverheard(deps, world, [conversation]);
}

/**
 * {@linkcode storeOverheard} for several conversations (a tick's): what every listener of every
 * conversation already holds is read at once, then each conversation's memories are written in
 * turn, in the order given. Nothing one conversation writes is read for another (ids are keyed
 * by conversation), so this writes what writing them one after another does, with the reads of
 * all in two requests on the hosted backend, not two per conversation (issue 25's busiest hour).
 */
export async function storeAllOverheard(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  world: World,
  conversations: readonly Conversation[],
): Promise<Usage> {
  const talks = conversations.filter((c) => (c.listeners ?? []).length > 0 && c.lines.length > 0);
  if (talks.length === 0) return emptyUsage();
  const worldId = world.id as WorldId;
  const ids = talks.map((c) => c.lines.map((_, i) => chatMemoryId(c.id, i) as MemoryId));
  const [everyone, ...importance] = await Promise.all([
    listAgents(deps, worldId),
    ...talks.map((conversation, t) =>
      speakerImportance(deps, worldId, { conversation, ids: ids[t] })
    ),
  ]);
  const agents = new Map(everyone.map((a) => [a.id as string, a]));
  const bandwidth = world.settings.attentionBandwidth ?? ATTENTION_BANDWIDTH;
  const heard = talks.map((c) =>
    (c.listeners ?? []).map((id) => agents.get(id))
      .filter((l): l is Agent => l !== undefined && !isPlayer(l))
  );
  const caught = talks.map((c, t) =>
    heard[t].map((l) => caughtLines(l, c.lines, { importance: importance[t], bandwidth }))
  );
  const scopeOf = (listener: Agent): AgentScope => ({ worldId, agentId: listener.id });
  // Each phase for every listener at once (the lookups, the embeddings, the writes): on the
  // hosted backend a phase's reads and appends go out in one request, not one per listener
  // (issue 25's busiest hour, BENCHMARKS.md). Each listener's write is its own, as before.
  const found = await Promise.all(talks.map((_, t) =>
    Promise.all(
      heard[t].map((l, n) =>
        deps.storage.memories.getMany(scopeOf(l), caught[t][n].map((i) => ids[t][i]))
      ),
    )
  ));
  const usages: Usage[] = [];
  for (const [t, conversation] of talks.entries()) {
    const nameOf = (id: string) =>
      agents.get(id)?.name ?? conversation.lines.find((l) => l.speaker === id)?.name ?? id;
    const prepared = await settleAll(heard[t].map((listener, n) => {
      const items = overheardItems(conversation, listener, {
        lines: caught[t][n].filter((_, j) => found[t][n][j] === null),
        ids: ids[t],
        importance: importance[t],
        nameOf,
      });
      return items.length === 0 ? null : prepareMemories(deps, listener, { items });
    }));
    await settleAll(heard[t].map((listener, n) => {
      const batch = prepared[n];
      if (batch === null) return null;
      const records = batch.records.map((r) => ({ ...r, confidence: OVERHEARD_CONFIDENCE }));
      return writeMemories(deps, scopeOf(listener), { prepared: { ...batch, records } });
    }));
    usages.push(...prepared.flatMap((p) => p === null ? [] : [p.usage]));
  }
  return addUsage(...usages);
}

/** The memories `listener` keeps of the conversation's `lines` (indexes) it caught and lacks. */
function overheardItems(
  conversation: Conversation,
  listener: Agent,
  { lines, ids, importance, nameOf }: {
    lines: readonly number[];
    ids: readonly MemoryId[];
    importance: readonly number[];
    nameOf: (id: string) => string;
  },
): NewMemory[] {
  return lines.map((i) => {
    const line = conversation.lines[i];
    const speaker = nameOf(line.speaker);
    const audience = joinNames(
      conversation.participants.filter((p) => p !== line.speaker).map(nameOf),
    );
    return {
      id: ids[i],
      description: `${listener.name} overheard ${speaker} say to ${audience}: "${line.text}"`,
      kind: "chat",
      provenance: `overheard:${speaker}`,
      at: line.at,
      importance: Math.max(1, importance[i] - 1),
      ...(listener.location ? { location: listener.location } : {}),
    };
  });
}

/** Every value once all have settled; throws the first failure, after the others are done. */
async function settleAll<T>(work: readonly (Promise<T> | null)[]): Promise<(T | null)[]> {
  const settled = await Promise.allSettled(work.map((w) => w ?? Promise.resolve(null)));
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T | null>).value);
}

/** Each line's importance as its speaker scored its own memory of it (5 when not found). */
async function speakerImportance(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  { conversation, ids }: { conversation: Conversation; ids: readonly MemoryId[] },
): Promise<number[]> {
  const importance = conversation.lines.map(() => 5);
  // Every speaker's read at once (one request on the hosted backend).
  await Promise.all([...new Set(conversation.lines.map((l) => l.speaker))].map(async (speaker) => {
    const mine = conversation.lines.map((_, i) => i).filter((i) =>
      conversation.lines[i].speaker === speaker
    );
    const records = await deps.storage.memories.getMany(
      { worldId, agentId: speaker },
      mine.map((i) => ids[i]),
    );
    mine.forEach((i, j) => {
      const r = records[j];
      if (r !== null) importance[i] = r.importance;
    });
  }));
  return importance;
}
