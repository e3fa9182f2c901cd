/**
 * @module What an operation's transaction hands cognition: its storage, the world, the agents read
 * under their leases, and those leases.
 */
import type { Lease, Storage } from "../../ports/mod.ts";
import { type Agent, AgentContext, type World } from "../../domain/mod.ts";

/**
 * A transaction over agents of one world (`app/transaction.ts` opens it), in the order they
 * were named: what cognition takes instead of locking and loading for itself.
 */
export interface AgentsTransaction {
  /** The unit's storage: documents served from its begin, document writes held for its commit. */
  storage: Storage;
  world: World;
  /** The agents as read under their leases. */
  agents: readonly Agent[];
  /** Each agent's lease, the fence of its writes that go to the store at once (memories). */
  leases: readonly Lease[];
}
/** A transaction over one agent. */
export interface AgentTransaction extends AgentContext {
  storage: Storage;
  /** The agent's lease, the fence of its writes that go to the store at once. */
  lease: Lease;
}
/** The one-agent view of agent `i` of a transaction. */
export function agentOf(tx: AgentsTransaction, i: number): AgentTransaction {
  return { storage: tx.storage, world: tx.world, agent: tx.agents[i], lease: tx.leases[i] };
}
