/** @module A conversation on request (Generative Agents §4.3): one transaction over both agents. */
import {
  checkCalendar,
  type ConversationResult,
  SimulacraError,
  type StartConversationInput,
  type WorldId,
} from "../domain/mod.ts";
import { converse } from "./cognition/mod.ts";
import type { Deps } from "../ports/mod.ts";
import { withAgents } from "./transaction.ts";

/**
 * Two agents talk (see `converse`) at `input.at` (default: the world clock), holding both
 * agents' leases.
 * @throws `world_not_found`, `agent_not_found` (also for an agent of another world),
 * `invalid_request` (the same agent twice), `unprocessable` (`at` outside an agent's calendar,
 * as for plans), `conflict` (a participant stayed busy), `model_*`, `store_unavailable`.
 */
export async function startConversation(
  deps: Deps,
  worldId: WorldId,
  input: StartConversationInput,
): Promise<ConversationResult> {
  const [a, b] = input.participants;
  if (a === b) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot start a conversation of agent "${a}" with itself: name two different agents`,
    );
  }
  const scopes = input.participants.map((agentId) => ({ worldId, agentId }));
  return await withAgents(deps, { scopes }, async (tx) => {
    const at = input.at ?? tx.world.clock.now;
    for (const agent of tx.agents) checkCalendar(tx.world, agent, at.slice(0, 10));
    const { plans: _plans, ...result } = await converse(deps, tx, { topic: input.topic, at });
    return result;
  });
}
