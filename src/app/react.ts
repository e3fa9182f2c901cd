/** @module React on request (Generative Agents §4.3): one transaction over the observer and the observed agent. */
import { reactHeld, type ReactInput, type ReactionResult } from "./cognition/mod.ts";
import type { Deps } from "../ports/mod.ts";
import type { AgentScope } from "../domain/mod.ts";
import { withAgents } from "./transaction.ts";

/**
 * Decides how the agent answers what it observed (see `reactHeld`), holding its lease and the
 * observed agent's, so a talk it decides on starts at once.
 * @throws `world_not_found`, `agent_not_found`, `invalid_request` (an agent observing itself),
 * `unprocessable` (`at` outside an agent's calendar), `conflict`, `model_*`,
 * `store_unavailable`.
 */
export async function react(
  deps: Deps,
  scope: AgentScope,
  input: ReactInput,
): Promise<ReactionResult> {
  const other = input.observed?.agent;
  const scopes = other === undefined || other === scope.agentId
    ? [scope]
    : [scope, { worldId: scope.worldId, agentId: other }];
  return await withAgents(deps, { scopes }, (tx) => reactHeld(deps, tx, input));
}
