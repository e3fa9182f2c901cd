/** @module Runs work on one agent at a time, across requests, ticks and processes. */
import type { Deps } from "../../ports/mod.ts";
import { type AgentScope, ConflictError } from "../../domain/mod.ts";
import { type HeldLease, withLease } from "../engine/mod.ts";

/** Options for {@linkcode withAgentLock}. */
export interface AgentLockOptions {
  /**
   * How long the lock outlives a holder that crashed; a live holder renews it every third of
   * this, so it never expires under a slow model. @default 5000
   */
  ttlMs?: number;
  /**
   * How long to wait for a busy agent before giving up. Long by default so that a retried
   * request waits for the first one and then finds its result (e.g. a known `eventId`).
   * @default 60000
   */
  waitMs?: number;
}

/** The agent lock's TTL: a crashed holder blocks its agent at most this long. */
export const AGENT_LOCK_TTL_MS = 5_000;

/** The key of the agent's lock. */
export function agentLockKey(scope: AgentScope): string {
  return `agent:${scope.worldId}:${scope.agentId}`;
}

/**
 * Runs `work` while holding the lock of the agent `request.scope` (renewed while it runs), so
 * concurrent perceives, reflections and tick steps of one agent never interleave. Writes that
 * must not outlive the lock pass `held.lease` as their `fence`.
 * @throws `conflict` when the agent stays busy longer than `waitMs`.
 */
export async function withAgentLock<T>(
  deps: Pick<Deps, "storage" | "sleep">,
  request: AgentLockOptions & { scope: AgentScope },
  work: (held: HeldLease) => Promise<T>,
): Promise<T> {
  const { scope, ...options } = request;
  return await withLease(deps, {
    key: agentLockKey(scope),
    ttlMs: options.ttlMs ?? AGENT_LOCK_TTL_MS,
    waitMs: options.waitMs ?? 60_000,
    busy: () => agentBusy(scope),
  }, work);
}

/** The error when an agent stays busy with other work longer than a caller waits. */
export function agentBusy(scope: AgentScope): ConflictError {
  return new ConflictError(
    `Cannot work on agent "${scope.agentId}": it stayed busy with another request, retry shortly`,
  );
}
