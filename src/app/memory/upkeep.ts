/**
 * @module Memory upkeep that reads and revises the stream: archiving under the world's memory
 * budget (README "Memory upkeep").
 */
import {
  type AgentScope,
  archivePicks,
  archiveTarget,
  type GameTime,
  type MemoryId,
  type MemoryRecord,
  type World,
} from "../../domain/mod.ts";
import type { Deps, FencedWrite } from "../../ports/mod.ts";

/** What archiving under a budget needs: the world's budget and recency decay, and the time. */
export interface MemoryBudget {
  /** Most live memories (the world's `memoryBudget`). */
  budget: number;
  /** The world's recency decay, which weighs memories the way retrieval does. */
  decay: number;
  /** The game time the archived memories get as `archivedAt`. */
  at: GameTime;
}

/** The world's memory budget at `at` (default: its clock). */
export function budgetOf(world: World, at: GameTime = world.clock.now): MemoryBudget {
  return { budget: world.settings.memoryBudget, decay: world.settings.recencyDecay, at };
}

const PAGE = 1000;

/** Every live memory of the agent, oldest first. */
export async function liveMemories(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<MemoryRecord[]> {
  const out: MemoryRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.storage.memories.list(scope, { limit: PAGE, order: "asc", cursor });
    out.push(...page.memories);
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  return out;
}

/**
 * When the agent holds more live memories than its budget, archives those least likely to be
 * retrieved again (`archivePicks`) down to a tenth below it, in one revision (fenced when
 * asked), and returns their ids; none otherwise. `live` saves the read when the caller has the
 * live memories already.
 */
export async function archiveOverBudget(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  options: MemoryBudget & FencedWrite & { live?: readonly MemoryRecord[] },
): Promise<MemoryId[]> {
  const live = options.live ?? await liveMemories(deps, scope);
  if (live.length <= options.budget) return [];
  const picks = archivePicks(live, { ...options, keep: archiveTarget(options.budget) });
  const revisions = picks.map((id) => ({ id, archivedAt: options.at }));
  await deps.storage.memories.revise(scope, revisions, { fence: options.fence });
  return picks;
}
