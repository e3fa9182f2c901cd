/** @module Runs work on one agent at a time, across requests, ticks and processes. */
import type { Deps } from "../deps.ts";
import { ConflictError } from "../errors.ts";
import type { AgentScope } from "../ids.ts";

/** Options for {@linkcode withAgentLock}. */
export interface AgentLockOptions {
  /** How long the lease lives if the holder dies. @default 30000 */
  ttlMs?: number;
  /** How long to wait for a busy agent before giving up. @default 10000 */
  waitMs?: number;
}

const POLL_MS = 15;

/**
 * Runs `work` while holding the agent's lock, so concurrent perceives, reflections and tick
 * steps of one agent never interleave.
 * @throws `conflict` when the agent stays busy longer than `waitMs`.
 */
export async function withAgentLock<T>(
  deps: Pick<Deps, "storage" | "sleep">,
  scope: AgentScope,
  work: () => Promise<T>,
  options: AgentLockOptions = {},
): Promise<T> {
  const key = `agent:${scope.worldId}:${scope.agentId}`;
  const ttlMs = options.ttlMs ?? 30_000;
  const attempts = Math.max(1, Math.ceil((options.waitMs ?? 10_000) / POLL_MS));
  for (let attempt = 0; attempt < attempts; attempt++) {
    const lease = await deps.storage.locks.acquire(key, ttlMs);
    if (lease) {
      try {
        return await work();
      } finally {
        await deps.storage.locks.release(lease);
      }
    }
    // Back off a little more each time, with a deterministic spread per attempt.
    await deps.sleep(POLL_MS + (attempt % 5) * 3);
  }
  throw new ConflictError(
    `Cannot work on agent "${scope.agentId}": it stayed busy with another request, retry shortly`,
  );
}
