/**
 * @module Consolidation ("sleep"): repeated or near-identical memories merge into one that counts
 * them, and a repeated insight strengthens the one stored instead of being stored again (README
 * "Memory upkeep"). Pure: the caller reads the live memories and writes the revisions.
 */
import type { GameTime } from "../time/mod.ts";
import type { MemoryId } from "../ids.ts";
import type { MemoryKind, MemoryRecord } from "./memory_record.ts";
import { EVIDENCE_MAX, type MemoryRevision } from "./upkeep.ts";

/** The kinds consolidation merges: what an agent experiences again and again. */
export const MERGED_KINDS: readonly MemoryKind[] = ["observation", "chat", "reflection"];

/**
 * A text as near-identical texts share it: lower case, letters and digits only, single spaces
 * ("Camille Moreau is married to Victor Moreau." and "camille moreau is married to victor
 * moreau" are one).
 */
export function memoryTextKey(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** What {@linkcode consolidationPlan} decided. */
export interface ConsolidationPlan {
  /** The survivors' and the merged memories' revisions, each memory once. */
  revisions: MemoryRevision[];
  /** The memories merged into another (they leave the live set). */
  merged: MemoryId[];
  /** How many groups of near-identical memories were found. */
  groups: number;
}

function byCreated(a: MemoryRecord, b: MemoryRecord): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1;
}

function later(a: GameTime, b: GameTime | undefined): GameTime {
  return b !== undefined && b > a ? b : a;
}

/**
 * Groups the live memories of {@linkcode MERGED_KINDS} that are near-identical (same kind, same
 * provenance, same {@linkcode memoryTextKey}; superseded ones are left alone). In each group of two or
 * more, the earliest survives with `count` (how many it stands for), `firstAt`, `lastAt`, the
 * highest importance and latest access of the group, and `evidence` citing what it merged (and
 * what they cited; the latest {@linkcode EVIDENCE_MAX}); the others get `mergedInto`. Told-by
 * provenance never mixes, and the merged memories keep their own fields and links.
 */
export function consolidationPlan(live: readonly MemoryRecord[]): ConsolidationPlan {
  const groups = new Map<string, MemoryRecord[]>();
  for (const memory of live) {
    if (!MERGED_KINDS.includes(memory.kind) || memory.supersededBy !== undefined) continue;
    const key = repeatKey(memory);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [memory]);
    else group.push(memory);
  }
  const plan: ConsolidationPlan = { revisions: [], merged: [], groups: 0 };
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    group.sort(byCreated);
    const [survivor, ...others] = group;
    plan.groups++;
    plan.revisions.push(survivorRevision(survivor, others));
    for (const other of others) {
      plan.revisions.push({ id: other.id, mergedInto: survivor.id });
      plan.merged.push(other.id);
    }
  }
  return plan;
}

/** The survivor of a group as it stands for all of them. */
function survivorRevision(survivor: MemoryRecord, others: readonly MemoryRecord[]): MemoryRevision {
  const all = [survivor, ...others];
  let lastAt = survivor.lastAt ?? survivor.createdAt;
  let accessed = survivor.lastAccessedAt;
  for (const m of others) {
    lastAt = later(lastAt, m.lastAt ?? m.createdAt);
    accessed = later(accessed, m.lastAccessedAt);
  }
  const evidence = [
    ...new Set([
      ...survivor.evidence ?? [],
      ...others.flatMap((m) => [...m.evidence ?? [], m.id]),
    ]),
  ].filter((id) => id !== survivor.id);
  const revision: MemoryRevision = {
    id: survivor.id,
    count: all.reduce((n, m) => n + (m.count ?? 1), 0),
    firstAt: survivor.firstAt ?? survivor.createdAt,
    lastAt,
    evidence: evidence.slice(-EVIDENCE_MAX),
  };
  const importance = Math.max(...all.map((m) => m.importance));
  if (importance > survivor.importance) revision.importance = importance;
  if (accessed !== survivor.lastAccessedAt) revision.lastAccessedAt = accessed;
  return revision;
}

/**
 * The revision that strengthens a stored memory experienced again at `at` instead of storing it
 * twice (a repeated reflection): one more in `count`, `lastAt` and the access time moved to `at`.
 */
export function strengthened(memory: MemoryRecord, at: GameTime): MemoryRevision {
  return {
    id: memory.id,
    count: (memory.count ?? 1) + 1,
    firstAt: memory.firstAt ?? memory.createdAt,
    lastAt: later(memory.lastAt ?? memory.createdAt, at),
    lastAccessedAt: later(memory.lastAccessedAt, at),
  };
}

/**
 * Whether an agent's memories are due for their nightly consolidation at `at`: not consolidated
 * since the last midnight (game time) and created before it. So a tick after midnight
 * consolidates once per game night, whatever the tick length.
 */
export function consolidationDue(
  agent: { createdAt: GameTime; consolidatedAt?: GameTime },
  at: GameTime,
): boolean {
  const midnight = `${at.slice(0, 10)}T00:00:00`;
  return (agent.consolidatedAt ?? agent.createdAt) < midnight;
}

/**
 * The memories without repeats not yet consolidated: the first of each kind, provenance and
 * {@linkcode memoryTextKey}, in order (what consolidation would merge).
 */
export function withoutRepeats<M extends Pick<MemoryRecord, "kind" | "provenance" | "description">>(
  memories: readonly M[],
): M[] {
  const seen = new Set<string>();
  return memories.filter((m) => {
    const key = repeatKey(m);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What near-identical memories share: kind, provenance and {@linkcode memoryTextKey}. */
export function repeatKey(m: Pick<MemoryRecord, "kind" | "provenance" | "description">): string {
  return `${m.kind}\u0000${m.provenance}\u0000${memoryTextKey(m.description)}`;
}
