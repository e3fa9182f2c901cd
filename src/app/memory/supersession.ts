/**
 * @module Supersession riding on the importance call: the live memories nearest each new one
 * are shown to it, and the one it names as updated is marked `supersededBy` the new memory,
 * `invalidAt` its time — kept, not deleted (README "Memory upkeep").
 */
import {
  type AgentScope,
  type GameTime,
  isLive,
  type MemoryId,
  type MemoryRecord,
  type MemoryRevision,
  memoryTextKey,
} from "../../domain/mod.ts";
import type { Storage } from "../../ports/mod.ts";

/** How many of the nearest live memories each new one is compared with. */
const NEAREST = 3;
/** How many vector matches are read to find them (some are not live, or superseded). */
const SEARCHED = 8;
/** Cosines below this are not the same fact. */
const MIN_COSINE = 0.2;
/** Most earlier memories one importance call is shown (a batch of 100 observations is shown 24). */
const EARLIER_MAX = 24;
/** Most observations of one call looked up (one vector search each), in order. */
const LOOKUPS_MAX = 16;

/** A new memory that updates an earlier one. */
export interface Supersession {
  /** The earlier memory. */
  id: MemoryId;
  /** The new memory. */
  by: MemoryId;
  /** The new memory's time: the earlier one's `invalidAt`. */
  at: GameTime;
}

/**
 * The agent's live memories nearest each vector (at most {@linkcode NEAREST} each, not
 * superseded, not plans), as one list without repeats of at most {@linkcode EARLIER_MAX}, the
 * nearest of every vector first: the earlier memories the importance call is shown, numbered
 * from 1 in this order. One vector search per vector, for the first {@linkcode LOOKUPS_MAX}, all
 * in one request on the hosted backend.
 */
export async function earlierMemories(
  storage: Pick<Storage, "vectors" | "memories">,
  scope: AgentScope,
  vectors: readonly Float32Array[],
): Promise<MemoryRecord[]> {
  const searches = await storage.vectors.queryMany(scope, vectors.slice(0, LOOKUPS_MAX), SEARCHED);
  const close = searches.map((matches) => matches.filter((m) => m.score >= MIN_COSINE));
  const ids = [...new Set(close.flatMap((matches) => matches.map((m) => m.id)))];
  const found = await storage.memories.getMany(scope, ids);
  const byId = new Map(
    found.filter((r): r is MemoryRecord => r !== null).map((r) => [r.id as string, r]),
  );
  const nearest = close.map((matches) =>
    matches
      .map((m) => byId.get(m.id))
      .filter((r): r is MemoryRecord => r !== undefined && mayBeSuperseded(r))
      .slice(0, NEAREST)
  );
  const earlier = new Map<string, MemoryRecord>();
  for (let rank = 0; rank < NEAREST; rank++) {
    for (const list of nearest) {
      const r = list[rank];
      if (r !== undefined && earlier.size < EARLIER_MAX) earlier.set(r.id, r);
    }
  }
  return [...earlier.values()];
}

/**
 * What the importance call's `supersedes` numbers mean for the new records: each names an
 * earlier memory (from 1) or none (0). A number out of range or naming the same text (a repeat,
 * not an update) is ignored; when several new memories update one, the latest does.
 */
export function supersessions(
  earlier: readonly MemoryRecord[],
  named: readonly { record: MemoryRecord; supersedes: number }[],
): Supersession[] {
  const out = new Map<string, Supersession>();
  for (const { record, supersedes } of named) {
    const old = earlier[supersedes - 1];
    if (old === undefined || memoryTextKey(old.description) === memoryTextKey(record.description)) {
      continue;
    }
    const prior = out.get(old.id);
    if (prior === undefined || prior.at <= record.createdAt) {
      out.set(old.id, { id: old.id, by: record.id, at: record.createdAt });
    }
  }
  return [...out.values()];
}

/** Whether a memory can be updated by a newer one: live, not superseded yet, not a plan. */
function mayBeSuperseded(r: MemoryRecord): boolean {
  return isLive(r) && r.supersededBy === undefined && r.kind !== "plan";
}

/**
 * What a reply's `supersedes` number means (respond, in chat): the recalled memory it names
 * (from 1, as the prompt listed them) is superseded by `record`, what the speaker said, when it
 * may be ({@linkcode mayBeSuperseded}) and is not the same text; 0, null or out of range: none.
 */
export function replySupersession(
  shown: readonly MemoryRecord[],
  named: { record: MemoryRecord; supersedes: number | null | undefined },
): Supersession[] {
  const old = shown[(named.supersedes ?? 0) - 1];
  if (old === undefined || !mayBeSuperseded(old)) return [];
  return supersessions([old], [{ record: named.record, supersedes: 1 }]);
}

/** The revisions that mark earlier memories superseded. */
export function supersedeRevisions(found: readonly Supersession[]): MemoryRevision[] {
  return found.map((s) => ({ id: s.id, invalidAt: s.at, supersededBy: s.by }));
}
