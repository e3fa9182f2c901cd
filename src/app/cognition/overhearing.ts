/**
 * @module Overhearing: agents in the same sub-area as a conversation (the same location string
 * when the world has no environment tree) who are not in it catch some of its lines, within
 * their attention bandwidth, and remember them as `overheard:<speaker>` with a lower confidence
 * than being told. What they overheard is news they may pass on in their own talks.
 */
import {
  type Agent,
  type AgentId,
  type AgentScope,
  ATTENTION_BANDWIDTH,
  chatMemoryId,
  type Conversation,
  isPlayer,
  type MemoryId,
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
 * Who may overhear a talk among `people` held where its initiator stands: awake agents (not
 * players) of the world in the same sub-area who are not participants, in id order. None for a
 * private talk or an initiator who is nowhere.
 */
export async function nearbyListeners(
  deps: Pick<Deps, "storage">,
  world: World,
  { people, private: hidden }: { people: readonly Agent[]; private?: boolean },
): Promise<AgentId[]> {
  const where = people[0].location;
  if (hidden || where === null) return [];
  const [agents, env] = await Promise.all([
    listAgents(deps, world.id as WorldId),
    loadEnvironment(deps, world.id as WorldId),
  ]);
  const spot = (location: string) =>
    env === null
      ? location.trim().toLowerCase()
      : location.split(":").slice(0, 2).map((p) => p.trim().toLowerCase()).join(":");
  const ids = new Set(people.map((p) => p.id as string));
  return agents
    .filter((a) =>
      !ids.has(a.id) && !isPlayer(a) && a.location !== null && spot(a.location) === spot(where) &&
      !SLEEPING.test(a.action ?? "")
    )
    .map((a) => a.id)
    .sort();
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
export async function storeOverheard(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  world: World,
  { conversation, people }: { conversation: Conversation; people: readonly Agent[] },
): Promise<void> {
  const listeners = conversation.listeners ?? [];
  if (listeners.length === 0 || conversation.lines.length === 0) return;
  const worldId = world.id as WorldId;
  const ids = conversation.lines.map((_, i) => chatMemoryId(conversation.id, i) as MemoryId);
  const importance = await speakerImportance(deps, worldId, { conversation, ids });
  const nameOf = (id: string) => people.find((p) => p.id === id)?.name ?? id;
  const bandwidth = world.settings.attentionBandwidth ?? ATTENTION_BANDWIDTH;
  const agents = new Map((await listAgents(deps, worldId)).map((a) => [a.id as string, a]));
  for (const listenerId of listeners) {
    const listener = agents.get(listenerId);
    if (listener === undefined) continue;
    const scope: AgentScope = { worldId, agentId: listener.id };
    const caught = caughtLines(listener, conversation.lines, { importance, bandwidth });
    const found = await deps.storage.memories.getMany(scope, caught.map((i) => ids[i]));
    const items: NewMemory[] = caught.filter((_, j) => found[j] === null).map((i) => {
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
    if (items.length === 0) continue;
    const prepared = await prepareMemories(deps, listener, { items });
    const records = prepared.records.map((r) => ({ ...r, confidence: OVERHEARD_CONFIDENCE }));
    await writeMemories(deps, scope, { prepared: { ...prepared, records } });
  }
}

/** Each line's importance as its speaker scored its own memory of it (5 when not found). */
async function speakerImportance(
  deps: Pick<Deps, "storage">,
  worldId: WorldId,
  { conversation, ids }: { conversation: Conversation; ids: readonly MemoryId[] },
): Promise<number[]> {
  const importance = conversation.lines.map(() => 5);
  for (const speaker of new Set(conversation.lines.map((l) => l.speaker))) {
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
  }
  return importance;
}
