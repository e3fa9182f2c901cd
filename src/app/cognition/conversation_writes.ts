/**
 * @module Storing a conversation and what it leaves behind: the transcript first, then each
 * participant's chat memories (ids keyed by the conversation and line), reflection counters and
 * conversation state. Everything after the transcript is derived from it and written so that
 * writing it again changes nothing: a try stopped anywhere after the transcript is finished by a
 * retry with the same conversation id, each memory written once and matching the transcript.
 */
import {
  addUsage,
  type Agent,
  type AgentId,
  agentNotFound,
  type AgentScope,
  chatMemoryId,
  ConflictError,
  type Conversation,
  isPlayer,
  LeaseLostError,
  type MemoryId,
  type Usage,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import { agentKey } from "../agents/mod.ts";
import { type Deps, type Lease, updateDocument } from "../../ports/mod.ts";
import {
  budgetOf,
  type NewMemory,
  type PreparedMemories,
  prepareMemories,
  writeMemories,
} from "../memory/mod.ts";
import { conversationKey } from "./conversation_key.ts";
import { saveBothStates } from "./conversation_state.ts";

/** A talk to store: its world, the conversation, its participants (initiator first), their leases. */
export interface HeldTalk {
  world: World;
  conversation: Conversation;
  /** Every participant, in the conversation's order (two, or a group of up to eight). */
  people: readonly Agent[];
  /** Each participant's lock lease, the fence of its writes. */
  fences: ReadonlyMap<AgentId, Lease>;
}

/**
 * Every participant's chat memories of the talk, scored and embedded but not written: done before
 * anything is stored, so a failed model call leaves no trace of the talk. A player keeps none
 * (the game remembers for it). What one was told may update what it knew ("the bakery has
 * moved"): the importance call is shown the nearest earlier memories and names those it
 * supersedes (README "Memory upkeep").
 */
export async function prepareChats(
  deps: Pick<Deps, "model" | "embedder" | "ids" | "storage">,
  { conversation, people }: Pick<HeldTalk, "conversation" | "people">,
): Promise<PreparedMemories[]> {
  const prepared: PreparedMemories[] = [];
  for (const self of people) {
    prepared.push(
      await prepareMemories(deps, self, {
        items: chatMemories(conversation, self, people),
        supersede: deps.storage,
      }),
    );
  }
  return prepared;
}

/**
 * Stores a new talk: the transcript, fenced by both leases at once (a holder that lost either
 * lock writes nothing), then both participants' memories, counters and states. When a memory
 * write fails, what was written is removed again, the transcript last (issue 14: all or nothing);
 * a crash, or a failed removal, leaves the transcript for a retry with its id to finish
 * ({@linkcode finishHeld}). Not after a lost lease: its new holder may be finishing the talk.
 * A failure after the memories (counters, states) leaves the conversation stored.
 */
export async function storeConversation(
  deps: Pick<Deps, "storage">,
  talk: HeldTalk,
  prepared: readonly PreparedMemories[],
): Promise<void> {
  const { world, conversation, people, fences } = talk;
  const key = conversationKey(world.id, conversation.id);
  await deps.storage.units.commit({
    documents: [{ key, value: conversation, expectedVersion: 0 }],
    fences: people.map((p) => fences.get(p.id)!),
    release: [],
  });
  const scopes = people.map((p) => scopeOf(world, p));
  try {
    await writeBoth(deps, talk, prepared);
  } catch (err) {
    if (!(err instanceof LeaseLostError)) {
      await Promise.all(scopes.map(async (scope, i) => {
        const ids = prepared[i].records.map((r) => r.id);
        // Records first: a record is never visible without its vector.
        await deps.storage.memories.remove(scope, ids);
        await deps.storage.vectors.delete(scope, ids);
      })).then(() => deps.storage.documents.delete(key)).catch(() => {
        // The transcript stays: a retry with its id finishes the talk.
      });
    }
    throw err;
  }
  await settle(deps, talk, prepared);
}

/**
 * The conversation `id` when it is stored already, finished: an earlier try stored its
 * transcript and stopped before writing all it leaves. The participants' memories it lacks are
 * prepared and written (an earlier try's are found by their ids and kept), then the counters for
 * those and both states. Null when it is not stored. A crash between a participant's memories
 * and its counter leaves that counter short of the conversation's importance (reflection comes
 * a little later); nothing is counted twice.
 */
export async function finishHeld(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  { world, people, fences }: Pick<HeldTalk, "world" | "people" | "fences">,
  id: string,
): Promise<{ conversation: Conversation; usage: Usage } | null> {
  const stored = await deps.storage.documents.get<Conversation>(conversationKey(world.id, id));
  if (stored === null) return null;
  const conversation = stored.value;
  const ordered = conversation.participants.map((p) => people.find((x) => x.id === p));
  if (ordered.some((p) => p === undefined) || ordered.length !== people.length) {
    throw new ConflictError(
      `Cannot finish conversation "${id}": it is between ${
        conversation.participants.join(" and ")
      }, not ${people.map((p) => p.id).join(" and ")}`,
    );
  }
  const talk: HeldTalk = { world, conversation, people: ordered as Agent[], fences };
  const chats = talk.people.map((self) => chatMemories(conversation, self, talk.people));
  const found = await Promise.all(
    talk.people.map((p, i) =>
      deps.storage.memories.getMany(scopeOf(world, p), chats[i].map((m) => m.id as MemoryId))
    ),
  );
  const prepared: PreparedMemories[] = [];
  for (const [i, p] of talk.people.entries()) {
    prepared.push(
      await prepareMemories(deps, p, {
        items: chats[i].filter((_, j) => found[i][j] === null),
        supersede: deps.storage,
      }),
    );
  }
  await writeBoth(deps, talk, prepared);
  await settle(deps, talk, prepared);
  return { conversation, usage: addUsage(...prepared.map((p) => p.usage)) };
}

function scopeOf(world: World, agent: Pick<Agent, "id">): AgentScope {
  return { worldId: world.id as WorldId, agentId: agent.id };
}

/** Writes every participant's memories together, each fenced by its lease. */
async function writeBoth(
  deps: Pick<Deps, "storage">,
  { world, people, fences }: HeldTalk,
  prepared: readonly PreparedMemories[],
): Promise<void> {
  const written = await Promise.allSettled(
    people.map((p, i) =>
      writeMemories(deps, scopeOf(world, p), {
        prepared: prepared[i],
        fence: fences.get(p.id)!,
        budget: budgetOf(world),
      })
    ),
  );
  const failed = written.find((w) => w.status === "rejected");
  if (failed) throw failed.reason;
}

/** The counters of the memories just written, then both participants' states. */
async function settle(
  deps: Pick<Deps, "storage">,
  { world, conversation, people, fences }: HeldTalk,
  prepared: readonly PreparedMemories[],
): Promise<void> {
  for (const [i, p] of people.entries()) {
    if (prepared[i].records.length === 0) continue;
    await bumpCounters(deps, scopeOf(world, p), {
      prepared: prepared[i],
      fence: fences.get(p.id)!,
    });
  }
  await saveBothStates(deps, world, { conversation, fences });
}

/**
 * The lines as `self` remembers them: its own as `self`, the others' as told by their speaker
 * ("Klaus said to Isabella and Maria: …" in a group); line `i` has the id
 * `chatMemoryId(conversation.id, i)`. None for a player.
 */
function chatMemories(
  conversation: Conversation,
  self: Agent,
  people: readonly Agent[],
): NewMemory[] {
  if (isPlayer(self)) return [];
  const location = self.location ?? undefined;
  const nameOf = (id: string) => people.find((p) => p.id === id)?.name ?? id;
  return conversation.lines.map((l, i) => {
    const speaker = nameOf(l.speaker);
    const audience = joinNames(people.filter((p) => p.id !== l.speaker).map((p) => p.name));
    return {
      id: chatMemoryId(conversation.id, i),
      description: `${speaker} said to ${audience}: "${l.text}"`,
      kind: "chat",
      provenance: l.speaker === self.id ? "self" : `told_by:${speaker}`,
      at: l.at,
      location,
    };
  });
}

/** "A", "A and B", "A, B and C". */
export function joinNames(names: readonly string[]): string {
  return names.length <= 1
    ? names.join("")
    : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** Adds the chat's importance to the reflection counter (and any pending scores). */
async function bumpCounters(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  { prepared, fence }: {
    prepared: Pick<PreparedMemories, "addedImportance" | "stillPending">;
    fence: Lease;
  },
): Promise<void> {
  await updateDocument<Agent>(deps.storage.documents, agentKey(scope), {
    change: (agent) => {
      if (agent === null) throw agentNotFound(scope);
      return {
        ...agent,
        importanceSinceReflection: agent.importanceSinceReflection + prepared.addedImportance,
        pendingImportance: [...agent.pendingImportance, ...prepared.stillPending],
      };
    },
    attempts: 3,
    create: false,
    fence,
    conflict:
      `Cannot update the counters of agent "${scope.agentId}" after a conversation: it kept changing; the conversation is stored`,
  });
}
