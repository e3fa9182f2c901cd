/**
 * @module Repair: memories without a vector get one again, vectors without a memory go. A
 * memory is written after its vector, so neither should exist; this finds and fixes what a
 * crash between two stores, or an older build, may have left. Runs over one agent (under its
 * lock, so no write is half-way while it looks), one world, or the whole store, in agents
 * ordered by world and agent id: a call may stop after `limit` memories and answer a `cursor`
 * the next call continues from, so a large store is swept in bounded steps. An agent is swept
 * from ids alone (its created index and its vector ids); only memories without a vector are
 * read, to embed them. The start-up sweep is quick: it first counts every agent's memories and
 * vectors (on the hosted backend one pipelined Redis request and one Vector request for the
 * whole store) and sweeps only agents whose counts differ.
 */
import { z } from "zod";
import { listAgents, withAgentLock } from "../agents/mod.ts";
import type { Deps, VectorEntry } from "../../ports/mod.ts";
import {
  AgentId,
  type AgentScope,
  type MemoryRecord,
  SimulacraError,
  WorldId,
} from "../../domain/mod.ts";
import { listWorlds } from "../world/mod.ts";
import { embedMemoriesAgain } from "../../mind/mod.ts";

/** Where a sweep stopped: `<worldId>/<agentId>` of the last agent it covered. */
export const RepairCursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,64}$/, "A cursor is the `cursor` of a repair")
  .meta({ description: "The `cursor` of the previous call: the sweep continues after it" });

/** What a repair found and fixed. */
export interface RepairReport {
  /** Worlds and agents the sweep covers (every call of it). */
  worlds: number;
  agents: number;
  /** Memories of the agents this call covered. */
  memories: number;
  /** Memories that had no vector and were embedded again. */
  reembedded: number;
  /** Vectors that had no memory and were deleted. */
  orphanVectorsDeleted: number;
  /** Agents this call swept record by record (all it covered, unless `quick`). */
  swept: number;
  /** Agents covered so far by this call and the calls before it (of `agents`). */
  done: number;
  /** Pass it as `cursor` to continue the sweep; null once every agent was covered. */
  cursor: string | null;
}

/** Options of {@linkcode repairStore}. */
export interface RepairOptions {
  /** Only these worlds. @default every world */
  worlds?: readonly WorldId[];
  /**
   * Sweep only agents whose memory and vector counts differ (what a crash between the two
   * writes leaves). Misses only an agent that lost a vector and kept an orphan one, which the
   * full sweep finds. @default false
   */
  quick?: boolean;
  /** The `cursor` of the previous call: continue after it. @default from the first agent */
  cursor?: string;
  /**
   * Stop once the agents swept have this many memories (whole agents: at least one), answering
   * a `cursor` when agents are left. @default no limit
   */
  limit?: number;
}

/** Texts embedded per call. */
const EMBED_BATCH = 100;

/**
 * Embeds memories again and stores their vectors (one embedding call per 100). Used wherever a
 * missing vector is found: retrieval, export and the repair sweep.
 * @throws `model_*` when embedding fails; `store_unavailable`.
 */
export async function embedAgain(
  deps: Pick<Deps, "storage" | "embedder">,
  scope: AgentScope,
  memories: readonly MemoryRecord[],
): Promise<VectorEntry[]> {
  const entries: VectorEntry[] = [];
  for (let i = 0; i < memories.length; i += EMBED_BATCH) {
    const batch = memories.slice(i, i + EMBED_BATCH);
    const { entries: made } = await embedMemoriesAgain(
      scope,
      { memories: batch, operation: "embedding.repair" },
      deps,
    );
    await deps.storage.vectors.upsert(scope, made);
    entries.push(...made);
  }
  return entries;
}

/** Every id: the count `MemoryStore.top` is given to list them all. */
const EVERY = Number.MAX_SAFE_INTEGER;

/** Repairs one agent under its lock. */
export async function repairAgent(
  deps: Pick<Deps, "storage" | "embedder" | "sleep">,
  scope: AgentScope,
): Promise<Pick<RepairReport, "memories" | "reembedded" | "orphanVectorsDeleted">> {
  return await withAgentLock(deps, { scope }, async () => {
    const [ids, vectorIds] = await Promise.all([
      deps.storage.memories.top(scope, "created", EVERY),
      deps.storage.vectors.ids(scope),
    ]);
    const vectors = new Set<string>(vectorIds);
    const records = new Set<string>(ids);
    const orphans = vectorIds.filter((id) => !records.has(id));
    const unvectored = ids.filter((id) => !vectors.has(id));
    const missing = unvectored.length === 0
      ? []
      : (await deps.storage.memories.getMany(scope, unvectored))
        .filter((m): m is MemoryRecord => m !== null);
    await embedAgain(deps, scope, missing);
    await deps.storage.vectors.delete(scope, orphans);
    return {
      memories: ids.length,
      reembedded: missing.length,
      orphanVectorsDeleted: orphans.length,
    };
  });
}

/**
 * Repairs every agent of every world (or of the worlds named), from the cursor on, until the
 * limit; see {@linkcode RepairOptions}.
 * @throws `invalid_request` on a malformed cursor; `store_unavailable`, `model_*`.
 */
export async function repairStore(
  deps: Pick<Deps, "storage" | "embedder" | "sleep">,
  options: RepairOptions = {},
): Promise<RepairReport> {
  const after = options.cursor === undefined ? null : scopeOfCursor(options.cursor);
  const worlds = options.worlds ?? (await listWorlds(deps)).map((w) => w.id as WorldId);
  // Started together, the listings (and the counts below) go out as one request where the
  // backend batches reads.
  const agents = await Promise.all(worlds.map((worldId) => listAgents(deps, worldId)));
  const scopes: AgentScope[] = worlds
    .flatMap((worldId, i) => agents[i].map((agent) => ({ worldId, agentId: agent.id as AgentId })))
    .sort(compareScopes);
  const start = after === null ? 0 : scopes.filter((s) => compareScopes(s, after) <= 0).length;
  const pending = scopes.slice(start);
  const report: RepairReport = {
    worlds: worlds.length,
    agents: scopes.length,
    memories: 0,
    reembedded: 0,
    orphanVectorsDeleted: 0,
    swept: 0,
    done: start,
    cursor: null,
  };
  // With `quick`, the memory count of each pending agent, or null where it differs from the
  // vector count (those are swept).
  let counted: (number | null)[] = pending.map(() => null);
  if (options.quick) {
    const [memories, vectors] = await Promise.all([
      Promise.all(pending.map((scope) => deps.storage.memories.count(scope, { status: "all" }))),
      deps.storage.vectors.counts(pending),
    ]);
    counted = memories.map((n, i) => (n === vectors[i] ? n : null));
  }
  let sweptMemories = 0;
  for (const [i, scope] of pending.entries()) {
    const count = counted[i];
    if (count !== null) report.memories += count;
    else {
      const fixed = await repairAgent(deps, scope);
      report.swept++;
      sweptMemories += fixed.memories;
      report.memories += fixed.memories;
      report.reembedded += fixed.reembedded;
      report.orphanVectorsDeleted += fixed.orphanVectorsDeleted;
    }
    report.done++;
    if (sweptMemories >= (options.limit ?? Infinity) && i < pending.length - 1) {
      report.cursor = `${scope.worldId}/${scope.agentId}`;
      break;
    }
  }
  return report;
}

function compareScopes(a: AgentScope, b: AgentScope): number {
  if (a.worldId !== b.worldId) return a.worldId < b.worldId ? -1 : 1;
  return a.agentId < b.agentId ? -1 : a.agentId > b.agentId ? 1 : 0;
}

function scopeOfCursor(cursor: string): AgentScope {
  if (!RepairCursor.safeParse(cursor).success) {
    throw new SimulacraError(
      "invalid_request",
      `Cannot continue a repair from cursor "${
        cursor.slice(0, 140)
      }": pass the \`cursor\` a repair answered`,
      { details: { cursor: cursor.slice(0, 140) } },
    );
  }
  const [worldId, agentId] = cursor.split("/");
  return { worldId: WorldId.parse(worldId), agentId: AgentId.parse(agentId) };
}
