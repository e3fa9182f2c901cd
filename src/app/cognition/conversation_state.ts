/**
 * @module Per agent: the conversation it is in or last had, and when it last talked with each
 * partner (the "conversation_state" collection). The reaction's "already talking" and "talked
 * recently" vetoes read it; a conversation writes it for both participants.
 */
import { z } from "zod";
import {
  type Deps,
  type DocumentKey,
  type FencedWrite,
  type Lease,
  updateDocument,
} from "../../ports/mod.ts";
import { AgentId, type Conversation, gameMinutes, GameTime, type World } from "../../domain/mod.ts";

/**
 * Per agent: the conversation it is in or last had, until when, and when it last talked with
 * each partner. The reaction vetoes "already talking" and "talked recently" read it.
 */
export const ConversationState = z.object({
  conversationId: z.string(),
  with: AgentId,
  /** The end of the agent's latest conversation; it is talking while `at < until`. */
  until: GameTime,
  /** Partner id → the end of their latest conversation. */
  lastTalked: z.record(z.string(), GameTime),
});
export type ConversationState = z.infer<typeof ConversationState>;

/** The document of an agent's conversation state. */
export function stateKey(world: Pick<World, "id">, agentId: AgentId): DocumentKey {
  return { collection: "conversation_state", scope: world.id, id: agentId };
}

/** An agent's conversation state, or null when it never talked. */
export async function readConversationState(
  deps: Pick<Deps, "storage">,
  world: World,
  agentId: AgentId,
): Promise<ConversationState | null> {
  return (await deps.storage.documents.get<ConversationState>(stateKey(world, agentId)))?.value ??
    null;
}

/** Whether the state says the agent is in a conversation at `at`. */
export function isTalking(state: ConversationState | null, at: GameTime): boolean {
  return state !== null && gameMinutes(at) < gameMinutes(state.until);
}

/** Game minutes from the end of the agent's latest talk with `otherId` to `at`; null if never. */
export function minutesSinceTalked(
  state: ConversationState | null,
  otherId: AgentId,
  at: GameTime,
): number | null {
  const end = state?.lastTalked[otherId];
  return end === undefined ? null : gameMinutes(at) - gameMinutes(end);
}

/**
 * Records that `agentId` talked with `others` until the conversation's end; with a `fence`,
 * only while that lease (the agent's lock) is held.
 */
async function saveState(
  deps: Pick<Deps, "storage">,
  world: World,
  { agentId, others, conversation, fence }: {
    agentId: AgentId;
    others: readonly AgentId[];
    conversation: Conversation;
  } & FencedWrite,
): Promise<void> {
  await updateDocument<ConversationState>(deps.storage.documents, stateKey(world, agentId), {
    change: (current) => ({
      conversationId: conversation.id,
      with: others[0],
      until: conversation.endedAt,
      lastTalked: {
        ...current?.lastTalked,
        ...Object.fromEntries(others.map((o) => [o, conversation.endedAt])),
      },
    }),
    attempts: 3,
    fence,
    conflict:
      `Cannot record the conversation state of agent "${agentId}": it kept changing; the conversation is stored`,
  });
}

/**
 * Records the conversation in every participant's state, each fenced by its lease: `with` is the
 * first other participant, and the talk counts as talking with each of the others.
 */
export async function saveBothStates(
  deps: Pick<Deps, "storage">,
  world: World,
  { conversation, fences }: { conversation: Conversation; fences: ReadonlyMap<AgentId, Lease> },
): Promise<void> {
  const everyone = conversation.participants;
  for (const agentId of everyone) {
    const others = everyone.filter((p) => p !== agentId);
    await saveState(deps, world, { agentId, others, conversation, fence: fences.get(agentId) });
  }
}
