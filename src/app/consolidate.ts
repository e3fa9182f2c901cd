/** @module Consolidate on request: one agent's memories merged and archived, one transaction. */
import { consolidateHeld, type ConsolidateInput, type ConsolidateResult } from "./memory/mod.ts";
import type { Deps } from "../ports/mod.ts";
import type { AgentScope } from "../domain/mod.ts";
import { withAgent } from "./transaction.ts";

/**
 * Consolidates one agent's memories now, as its night does in ticks (`consolidateHeld`), at
 * `options.at` (default: the world clock).
 * @throws `world_not_found`, `agent_not_found`, `store_unavailable`, `conflict` (the agent
 * stayed busy).
 */
export async function consolidate(
  deps: Deps,
  scope: AgentScope,
  options: ConsolidateInput = {},
): Promise<ConsolidateResult> {
  return await withAgent(
    deps,
    { scope },
    (tx) => consolidateHeld(tx, options.at ?? tx.world.clock.now),
  );
}
