/**
 * @module Archiving under a memory budget: which live memories are least likely to be retrieved
 * again, so they leave the live set first (README "Memory upkeep"). Pure: the caller reads the
 * live memories and writes the revision.
 */
import { gameMinutesFast, type GameTime } from "../time/mod.ts";
import type { MemoryId } from "../ids.ts";
import type { MemoryRecord } from "./memory_record.ts";

/** What {@linkcode retentionOf} and {@linkcode archivePicks} weigh memories at. */
export interface RetentionOptions {
  /** The game time now. */
  at: GameTime;
  /** The world's recency decay per game hour (retrieval's). */
  decay: number;
}

/**
 * How much a live memory is worth keeping live, the higher the likelier it is retrieved again:
 * retrieval's recency (decay^hours since last access) plus importance / 10, more for a memory
 * recalled since it was stored, a consolidated one that stands for several, and a reflection;
 * far less for a superseded one. Seeds (who the agent is) are always kept: Infinity.
 */
export function retentionOf(memory: MemoryRecord, options: RetentionOptions): number {
  if (memory.kind === "seed") return Infinity;
  const accessed = gameMinutesFast(memory.lastAccessedAt);
  const hours = Math.max(0, (gameMinutesFast(options.at) - accessed) / 60);
  let value = options.decay ** hours + memory.importance / 10;
  if (accessed > gameMinutesFast(memory.createdAt)) value += 0.5;
  if ((memory.count ?? 1) > 1) value += Math.min(0.5, Math.log2(memory.count!) / 10);
  if (memory.kind === "reflection") value += 0.25;
  if (memory.supersededBy !== undefined) value -= 2;
  return value;
}

/**
 * The ids of the live memories to archive so that `keep` remain: the lowest
 * {@linkcode retentionOf} first (ties: the older, then the smaller id). None when `live` holds
 * `keep` or fewer; never a seed, so more than `keep` may remain when seeds alone exceed it.
 */
export function archivePicks(
  live: readonly MemoryRecord[],
  options: RetentionOptions & { keep: number },
): MemoryId[] {
  const excess = live.length - options.keep;
  if (excess <= 0) return [];
  const ranked = live
    .filter((m) => m.kind !== "seed")
    .map((memory) => ({ memory, value: retentionOf(memory, options) }))
    .sort((a, b) =>
      a.value - b.value ||
      (a.memory.createdAt < b.memory.createdAt
        ? -1
        : a.memory.createdAt > b.memory.createdAt
        ? 1
        : 0) ||
      (a.memory.id < b.memory.id ? -1 : 1)
    );
  return ranked.slice(0, excess).map((r) => r.memory.id);
}

/**
 * How many live memories an agent over its budget keeps: a tenth below the budget, so the next
 * archiving waits for that many new memories instead of running on every write.
 */
export function archiveTarget(budget: number): number {
  return budget - Math.ceil(budget / 10);
}
