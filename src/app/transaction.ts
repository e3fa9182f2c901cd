/**
 * @module The one place an operation locks, loads and commits: {@linkcode withAgent} (and
 * {@linkcode withAgents} for two agents, e.g. a conversation) takes the agents' leases, reads
 * the world, the agents and the documents the operation names in the begin round trip, hands
 * the work a transaction and commits once (`engine/unit_of_work.ts`). A tick step runs in the
 * engine's unit of work and opens the same transaction on it with {@linkcode openAgents}.
 */
import {
  type Agent,
  agentNotFound,
  type AgentScope,
  SimulacraError,
  type World,
  type WorldId,
} from "../domain/mod.ts";
import {
  AGENT_LOCK_TTL_MS,
  agentBusy,
  agentKey,
  agentLockKey,
  agentOf,
  type AgentsTransaction,
  type AgentTransaction,
} from "./agents/mod.ts";
import { type Deps, type DocumentKey, requireDocument } from "../ports/mod.ts";
import { type DeclaredRead, withUnitOfWork, type WorkLease, type WorkUnit } from "./engine/mod.ts";
import { getWorld, worldKey } from "./world/mod.ts";

export type { AgentsTransaction, AgentTransaction };

/** Options for {@linkcode withAgent} and {@linkcode withAgents}. */
export interface TransactionOptions {
  /** The world, when the caller read it already (e.g. to work out `reads`): not read again. */
  world?: World;
  /** Further documents read in the begin round trip. */
  documents?: readonly DocumentKey[];
  /** Reads started with the leases (see `WorkNeeds.reads`). */
  reads?: readonly DeclaredRead[];
  /** How long to wait for a busy agent. @default 60000 */
  waitMs?: number;
  /** How long a lease outlives a holder that crashed. @default AGENT_LOCK_TTL_MS */
  ttlMs?: number;
}

/** The lease of an agent as a unit of work takes it. */
export function agentLease(
  scope: AgentScope,
  options: Pick<TransactionOptions, "waitMs" | "ttlMs"> = {},
): WorkLease {
  return {
    key: agentLockKey(scope),
    ttlMs: options.ttlMs ?? AGENT_LOCK_TTL_MS,
    // Long by default, so a retried request waits for the first one and then finds its result.
    waitMs: options.waitMs ?? 60_000,
    busy: () => agentBusy(scope),
  };
}

/**
 * Runs `work` on the agent of `request.scope` in one transaction: its lease taken and the
 * world, the agent and `request.documents` read in one round trip; the writes committed at the
 * end, atomically (the agent's over a fresh version when something else, e.g. a PATCH, changed
 * it meanwhile: see `WorkNeeds.rebase`).
 * @throws `world_not_found`, `agent_not_found`, `conflict` (the agent stayed busy, or a
 * document written changed meanwhile), what `work` throws, `store_unavailable`.
 */
export async function withAgent<T>(
  deps: Pick<Deps, "storage" | "sleep">,
  request: TransactionOptions & { scope: AgentScope },
  work: (tx: AgentTransaction) => Promise<T>,
): Promise<T> {
  const { scope, ...options } = request;
  return await withAgents(deps, { ...options, scopes: [scope] }, (tx) => work(agentOf(tx, 0)));
}

/**
 * As {@linkcode withAgent}, over several agents of one world (a conversation's two): their
 * leases are taken in key order, so two transactions over the same agents never deadlock.
 * @throws as {@linkcode withAgent}; `invalid_request` when an agent is named twice.
 */
export async function withAgents<T>(
  deps: Pick<Deps, "storage" | "sleep">,
  request: TransactionOptions & { scopes: readonly AgentScope[] },
  work: (tx: AgentsTransaction) => Promise<T>,
): Promise<T> {
  const { scopes, ...options } = request;
  if (new Set(scopes.map(agentLockKey)).size !== scopes.length) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot work on agent "${scopes[0].agentId}" twice at once: name different agents`,
    );
  }
  const ordered = [...scopes].sort((a, b) => agentLockKey(a) < agentLockKey(b) ? -1 : 1);
  const worldId = scopes[0].worldId;
  return await withUnitOfWork(deps, {
    leases: ordered.map((scope) => agentLease(scope, options)),
    documents: [
      ...options.world ? [] : [worldKey(worldId)],
      ...scopes.map(agentKey),
      ...options.documents ?? [],
    ],
    reads: options.reads,
    rebase: scopes.map(agentKey),
  }, async (unit) => {
    const world = options.world ?? await getWorld(unit, worldId);
    return await work(await openAgents(unit, { world, scopes }));
  });
}

/**
 * The transaction over `scopes` in a unit of work that holds their leases: the agents read from
 * its storage (at no cost when the unit read them with its leases).
 * @throws `agent_not_found`.
 */
export async function openAgents(
  unit: WorkUnit,
  { world, scopes }: { world: World; scopes: readonly AgentScope[] },
): Promise<AgentsTransaction> {
  const agents = await Promise.all(scopes.map(async (scope) => {
    const doc = await requireDocument<Agent>(
      unit.storage.documents,
      agentKey(scope),
      () => agentNotFound(scope),
    );
    return doc.value;
  }));
  const leases = scopes.map((scope) => {
    const lease = unit.leases.find((l) => l.key === agentLockKey(scope));
    if (!lease) throw new Error(`The unit of work does not hold the lease of "${scope.agentId}"`);
    return lease;
  });
  return { storage: unit.storage, world, agents, leases };
}

/** The scope of an agent of the transaction's world. */
export function scopeIn(world: World, agentId: Agent["id"]): AgentScope {
  return { worldId: world.id as WorldId, agentId };
}
