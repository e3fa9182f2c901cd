/**
 * @module Consolidation ("sleep") inside an agent's transaction: near-identical memories merged,
 * the stream brought back under its budget, all in one fenced revision; and repeated insights
 * strengthening the stored one instead of being stored again (README "Memory upkeep").
 */
import { z } from "zod";
import {
  type Agent,
  agentNotFound,
  type AgentScope,
  archivePicks,
  archiveTarget,
  consolidationDue,
  consolidationPlan,
  GameTime,
  type MemoryId,
  type MemoryRecord,
  type MemoryRevision,
  repeatKey,
  revised,
  strengthened,
  type WorldId,
} from "../../domain/mod.ts";
import { agentKey, type AgentTransaction } from "../agents/mod.ts";
import { type Deps, type Lease, updateDocument } from "../../ports/mod.ts";
import type { NewMemory } from "./ingest.ts";
import { budgetOf, liveMemories } from "./upkeep.ts";

/** The body of `POST …/agents/{agent}/consolidate`. */
export const ConsolidateInput = z
  .strictObject({
    at: GameTime.optional().meta({
      description: "Game time of the consolidation (archivedAt); default: the world clock",
    }),
  })
  .meta({ id: "ConsolidateInput", example: {} });
export type ConsolidateInput = z.input<typeof ConsolidateInput>;

/** What a consolidation did. */
export const ConsolidateResult = z
  .object({
    groups: z.number().int().meta({
      description: "Groups of near-identical memories found, each merged into its earliest",
    }),
    merged: z.number().int().meta({
      description: "Memories merged into another (they carry mergedInto; it counts them)",
    }),
    archived: z.number().int().meta({
      description: "Memories archived to bring the agent back under the world's memoryBudget",
    }),
    live: z.number().int().meta({ description: "Live memories after it" }),
  })
  .meta({ id: "ConsolidateResult" });
export type ConsolidateResult = z.infer<typeof ConsolidateResult>;

/**
 * Consolidates the transaction's agent at `at`: reads its live memories once, merges each group
 * of near-identical ones (`consolidationPlan`), archives what is over the world's memoryBudget
 * among what remains (`archivePicks`), writes all of it as one revision fenced by the agent's
 * lease, and records `consolidatedAt` on the agent. No model call.
 * @throws `store_unavailable`; `conflict` when the lease was lost (nothing written).
 */
export async function consolidateHeld(
  tx: AgentTransaction,
  at: GameTime,
): Promise<ConsolidateResult> {
  const { world, agent, lease: fence } = tx;
  const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
  const d = { storage: tx.storage };
  const live = await liveMemories(d, scope);
  const plan = consolidationPlan(live);
  const byId = new Map<string, MemoryRevision>(plan.revisions.map((r) => [r.id, r]));
  const out = new Set<string>(plan.merged);
  const remaining = live.filter((m) => !out.has(m.id)).map((m) => {
    const revision = byId.get(m.id);
    return revision === undefined ? m : revised(m, revision);
  });
  const budget = budgetOf(world, at);
  const picks = remaining.length > budget.budget
    ? archivePicks(remaining, { ...budget, keep: archiveTarget(budget.budget) })
    : [];
  for (const id of picks) byId.set(id, { ...byId.get(id), id, archivedAt: at });
  await tx.storage.memories.revise(scope, [...byId.values()], { fence });
  await markConsolidated(d, scope, { at, fence });
  return {
    groups: plan.groups,
    merged: plan.merged.length,
    archived: picks.length,
    live: remaining.length - picks.length,
  };
}

/** The tick's consolidation: once a game night (`consolidationDue`), else nothing. */
export async function consolidateIfDue(
  tx: AgentTransaction,
  at: GameTime,
): Promise<ConsolidateResult | null> {
  if (!consolidationDue(tx.agent, at)) return null;
  return await consolidateHeld(tx, at);
}

/** Records the consolidation on the agent, fenced (the transaction's commit checks the rest). */
async function markConsolidated(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  change: { at: GameTime; fence: Lease },
): Promise<void> {
  await updateDocument<Agent>(deps.storage.documents, agentKey(scope), {
    change: (current) => {
      if (current === null) throw agentNotFound(scope);
      return { ...current, consolidatedAt: change.at };
    },
    attempts: 3,
    create: false,
    fence: change.fence,
    conflict:
      `Cannot record the consolidation of agent "${scope.agentId}": its document kept changing; the memories are consolidated`,
  });
}

/** Of new memories, those to store, and the stored ones the others strengthened. */
export interface Repeats {
  fresh: NewMemory[];
  strengthened: MemoryId[];
}

/** How many of an agent's newest live memories of a kind a repeat is looked for in. */
const REPEAT_WINDOW = 500;

/**
 * Leaves out of `items` those whose text (`memoryTextKey`) a live memory of the same kind and
 * provenance already holds, among the agent's newest {@linkcode REPEAT_WINDOW} of that kind,
 * or an earlier item holds (its evidence joins that item's), and strengthens that memory instead (`strengthened`, fenced), e.g. a reflection that repeats
 * an insight: "Camille Moreau is married to Victor Moreau." is stored once and counted.
 */
export async function strengthenRepeats(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  options: { items: readonly NewMemory[]; at: GameTime; fence?: Lease },
): Promise<Repeats> {
  const kinds = [...new Set(options.items.map((m) => m.kind))];
  const pages = await Promise.all(
    kinds.map((kind) => deps.storage.memories.list(scope, { kind, limit: REPEAT_WINDOW })),
  );
  const stored = new Map<string, MemoryRecord>();
  for (const m of pages.flatMap((p) => p.memories)) {
    stored.set(repeatKey(m), stored.get(repeatKey(m)) ?? m);
  }
  const revisions = new Map<string, MemoryRevision>();
  const firsts = new Map<string, NewMemory>();
  const fresh = options.items.map((item) => ({ ...item })).filter((item) => {
    const key = repeatKey(item);
    const first = firsts.get(key);
    if (first !== undefined) {
      // A repeat within the batch: one memory, citing what both cite.
      first.evidence = [...new Set([...first.evidence ?? [], ...item.evidence ?? []])];
      return false;
    }
    const match = stored.get(key);
    if (match === undefined) {
      firsts.set(key, item);
      return true;
    }
    const again = revisions.get(match.id);
    const current = again === undefined ? match : revised(match, again);
    revisions.set(match.id, strengthened(current, options.at));
    return false;
  });
  await deps.storage.memories.revise(scope, [...revisions.values()], { fence: options.fence });
  return { fresh, strengthened: [...revisions.keys()] as MemoryId[] };
}
