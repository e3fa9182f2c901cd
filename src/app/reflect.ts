/** @module Reflect on request (Generative Agents §4.2): one transaction over the agent. */
import { reflectHeld, type ReflectOptions, type ReflectResult } from "./cognition/mod.ts";
import type { Deps } from "../ports/mod.ts";
import type { AgentScope } from "../domain/mod.ts";
import { withAgent } from "./transaction.ts";

/**
 * Reflects for one agent when due, or when forced (see `reflectHeld`), at `options.at`
 * (default: the world clock).
 * @throws `world_not_found`, `agent_not_found`, `model_*`, `store_unavailable`, `conflict`
 * (the agent stayed busy).
 */
export async function reflect(
  deps: Deps,
  scope: AgentScope,
  options: ReflectOptions = {},
): Promise<ReflectResult> {
  return await withAgent(deps, { scope }, (tx) =>
    reflectHeld(deps, tx, {
      force: options.force ?? false,
      at: options.at ?? tx.world.clock.now,
    }));
}
