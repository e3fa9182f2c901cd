/** @module A conversation on request (Generative Agents §4.3): one transaction over its participants. */
import {
  type Agent,
  checkCalendar,
  ConflictError,
  type Conversation,
  type ConversationResult,
  type GameTime,
  isPlayer,
  SimulacraError,
  type StartConversationInput,
  type World,
  type WorldId,
} from "../domain/mod.ts";
import {
  conversationKey,
  converse,
  isTalking,
  readConversationState,
  timedOut,
} from "./cognition/mod.ts";
import type { Deps } from "../ports/mod.ts";
import { type AgentsTransaction, withAgents } from "./transaction.ts";

/** Actions that mean an agent is asleep and cannot be talked to. */
const ASLEEP = /sleep|\bnap(?:ping)?\b/i;

/**
 * Two to eight agents talk (see `converse`) at `input.at` (default: the world clock), holding
 * every participant's lease. With a player among them the conversation opens and waits for the
 * player's line (`open: true`). Everything is checked before any model call.
 * @throws `world_not_found`, `agent_not_found` (also for an agent of another world),
 * `unprocessable` (an agent named twice, `at` outside an agent's calendar, as for plans),
 * `conflict` (a participant asleep, waiting in an open conversation with a player, talking at
 * an explicit `at`, or staying busy), `model_*`,
 * `store_unavailable`.
 */
export async function startConversation(
  deps: Deps,
  worldId: WorldId,
  input: StartConversationInput,
): Promise<ConversationResult> {
  const twice = input.participants.find((p, i) => input.participants.indexOf(p) !== i);
  if (twice !== undefined) {
    throw new SimulacraError(
      "unprocessable",
      `Cannot start a conversation naming agent "${twice}" twice: name each participant once`,
      { details: { field: "participants", agent: twice } },
    );
  }
  const scopes = input.participants.map((agentId) => ({ worldId, agentId }));
  return await withAgents(deps, { scopes }, async (tx) => {
    const at = input.at ?? tx.world.clock.now;
    for (const agent of tx.agents) {
      if (!isPlayer(agent)) checkCalendar(tx.world, agent, at.slice(0, 10));
    }
    await assertFree(tx, { at, explicit: input.at !== undefined });
    const { plans: _plans, ...result } = await converse(deps, tx, {
      topic: input.topic,
      at,
      private: input.private,
    });
    return result;
  });
}

/**
 * Refuses a participant who sleeps, waits in an open conversation with a player, or (with an
 * explicit `at`) is in a conversation then. Without `at`, a talk still running at the world
 * clock is waited for instead: the new one starts when it ends (see `converse`).
 * @throws `conflict`.
 */
async function assertFree(
  tx: AgentsTransaction,
  { at, explicit }: { at: GameTime; explicit: boolean },
): Promise<void> {
  for (const agent of tx.agents) {
    if (!isPlayer(agent) && ASLEEP.test(agent.action ?? "")) {
      throw busyAgent(tx.world, agent, "is asleep");
    }
    const state = await readConversationState(tx, tx.world, agent.id);
    if (state === null) continue;
    const current = await tx.storage.documents.get<Conversation>(
      conversationKey(tx.world.id, state.conversationId),
    );
    const waiting = current?.value.open === true && !timedOut(tx.world, current.value, at);
    if (waiting || (explicit && isTalking(state, at))) {
      const which = `conversation "${state.conversationId}"`;
      throw busyAgent(tx.world, agent, `is already talking (${which})`);
    }
  }
}

function busyAgent(world: World, agent: Agent, why: string): ConflictError {
  return new ConflictError(
    `Cannot start a conversation in world "${world.id}": agent "${agent.id}" ${why}`,
    { details: { agent: agent.id } },
  );
}
