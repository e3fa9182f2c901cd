/**
 * @module Repair: memories without a vector get one again, vectors without a memory go. A
 * memory is written after its vector, so neither should exist; this finds and fixes what a
 * crash between two stores, or an older build, may have left. Runs over one agent (under its
 * lock, so no write is half-way while it looks), one world, or the whole store. The start-up
 * sweep is quick: it first counts every agent's memories and vectors (on the hosted backend one
 * pipelined Redis request and one Vector request for the whole store) and sweeps only agents
 * whose counts differ.
 */
import { listAgents, withAgentLock } from "../agents/mod.ts";
import type { Deps, VectorEntry } from "../../ports/mod.ts";
import type { AgentId, AgentScope, MemoryId, MemoryRecord, WorldId } from "../../domain/mod.ts";
import { listWorlds } from "../world/mod.ts";
import { embedMemoriesAgain } from "../../mind/mod.ts";

/** What a repair found and fixed. */
export interface RepairReport {
  worlds: number;
  agents: number;
  memories: number;
  /** Memories that had no vector and were embedded again. */
  reembedded: number;
  /** Vectors that had no memory and were deleted. */
  orphanVectorsDeleted: number;
  /** Agents swept record by record (all of them, unless `quick`). */
  swept: number;
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

/** Repairs one agent under its lock. */
export async function repairAgent(
  deps: Pick<Deps, "storage" | "embedder" | "sleep">,
  scope: AgentScope,
): Promise<Omit<RepairReport, "worlds" | "agents" | "swept">> {
  return await withAgentLock(deps, { scope }, async () => {
    const records = await deps.storage.memories.all(scope);
    const vectorIds = new Set<string>(await deps.storage.vectors.ids(scope));
    const missing = records.filter((m) => !vectorIds.has(m.id));
    const recordIds = new Set<string>(records.map((m) => m.id));
    const orphans = [...vectorIds].filter((id) => !recordIds.has(id)) as MemoryId[];
    await embedAgain(deps, scope, missing);
    await deps.storage.vectors.delete(scope, orphans);
    return {
      memories: records.length,
      reembedded: missing.length,
      orphanVectorsDeleted: orphans.length,
    };
  });
}

/** Repairs every agent of every world (or of the worlds named); see {@linkcode RepairOptions}. */
export async function repairStore(
  deps: Pick<Deps, "storage" | "embedder" | "sleep">,
  options: RepairOptions = {},
): Promise<RepairReport> {
  const worlds = options.worlds ?? (await listWorlds(deps)).map((w) => w.id as WorldId);
  // Started together, the listings (and the counts below) go out as one request where the
  // backend batches reads.
  const agents = await Promise.all(worlds.map((worldId) => listAgents(deps, worldId)));
  const scopes: AgentScope[] = worlds.flatMap((worldId, i) =>
    agents[i].map((agent) => ({ worldId, agentId: agent.id as AgentId }))
  );
  const report: RepairReport = {
    worlds: worlds.length,
    agents: scopes.length,
    memories: 0,
    reembedded: 0,
    orphanVectorsDeleted: 0,
    swept: 0,
  };
  let todo = scopes;
  if (options.quick) {
    const [memories, vectors] = await Promise.all([
      Promise.all(scopes.map((scope) => deps.storage.memories.count(scope, { status: "all" }))),
      deps.storage.vectors.counts(scopes),
    ]);
    const differ = scopes.map((_, i) => memories[i] !== vectors[i]);
    todo = scopes.filter((_, i) => differ[i]);
    // Agents swept below count their memories as they read them.
    report.memories = memories.reduce((sum, n, i) => sum + (differ[i] ? 0 : n), 0);
  }
  for (const scope of todo) {
    report.swept++;
    const fixed = await repairAgent(deps, scope);
    report.memories += fixed.memories;
    report.reembedded += fixed.reembedded;
    report.orphanVectorsDeleted += fixed.orphanVectorsDeleted;
  }
  return report;
}
