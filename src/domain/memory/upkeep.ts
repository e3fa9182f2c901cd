/**
 * @module Memory upkeep as data: which memories are live, and the revisions that archive, merge,
 * strengthen or supersede stored memories without deleting any (README "Memory upkeep").
 */
import { z } from "zod";
import { MemoryId } from "../ids.ts";
import { SimulacraError } from "../errors.ts";
import { GameTime } from "../time/mod.ts";
import type { MemoryRecord } from "./memory_record.ts";

/**
 * Which memories a read covers: `live` (the default of every read: neither archived nor merged;
 * superseded ones are live), `archived` (moved out of the live set: archived or merged), `all`.
 */
export const MemoryStatus = z.enum(["live", "archived", "all"]).meta({ id: "MemoryStatus" });
export type MemoryStatus = z.infer<typeof MemoryStatus>;

/** Whether a memory is in the live set: neither archived nor merged into another. */
export function isLive(memory: Pick<MemoryRecord, "archivedAt" | "mergedInto">): boolean {
  return memory.archivedAt === undefined && memory.mergedInto === undefined;
}

/** Whether a memory is in the set a read of `status` covers. */
export function inStatus(
  memory: Pick<MemoryRecord, "archivedAt" | "mergedInto">,
  status: MemoryStatus,
): boolean {
  return status === "all" || (status === "live") === isLive(memory);
}

/** The fields upkeep changes on a stored memory (all optional on the record). */
export const UPKEEP_FIELDS = [
  "archivedAt",
  "mergedInto",
  "count",
  "firstAt",
  "lastAt",
  "invalidAt",
  "supersededBy",
  "evidence",
] as const;
export type UpkeepField = (typeof UPKEEP_FIELDS)[number];

/** Most ids a revision may put in `evidence` (a merged memory cites at most this many). */
export const EVIDENCE_MAX = 500;

/**
 * One change to a stored memory: each upkeep field given is set (`null` removes it); importance
 * (which clears `importancePending`) and lastAccessedAt re-sort the memory, e.g. a reflection
 * strengthened instead of stored again.
 */
export const MemoryRevision = z.strictObject({
  id: MemoryId,
  archivedAt: GameTime.nullable().optional(),
  mergedInto: MemoryId.nullable().optional(),
  count: z.number().int().min(1).nullable().optional(),
  firstAt: GameTime.nullable().optional(),
  lastAt: GameTime.nullable().optional(),
  invalidAt: GameTime.nullable().optional(),
  supersededBy: MemoryId.nullable().optional(),
  evidence: z.array(MemoryId).max(EVIDENCE_MAX).nullable().optional(),
  importance: z.number().int().min(1).max(10).optional(),
  lastAccessedAt: GameTime.optional(),
});
export type MemoryRevision = z.infer<typeof MemoryRevision>;

/**
 * Checks revisions before a store writes any: each valid, no id twice. Returns whether there is
 * any to apply.
 * @throws {SimulacraError} `invalid_request` naming the first bad revision.
 */
export function checkRevisions(revisions: readonly MemoryRevision[]): boolean {
  const seen = new Set<string>();
  revisions.forEach((revision, index) => {
    const parsed = MemoryRevision.safeParse(revision);
    if (!parsed.success || seen.has(revision.id) || revision.mergedInto === revision.id) {
      throw new SimulacraError(
        "invalid_request",
        `Cannot revise memory "${revision.id}": ${
          parsed.success
            ? seen.has(revision.id)
              ? "it is revised twice in one call"
              : "it cannot merge into itself"
            : parsed.error.issues[0].message
        }`,
        { details: { index } },
      );
    }
    seen.add(revision.id);
  });
  return revisions.length > 0;
}

/** The upkeep fields of a memory, as a record of its own (absent fields left out). */
export function upkeepOf(memory: MemoryRecord): Partial<Pick<MemoryRecord, UpkeepField>> {
  const out: Record<string, unknown> = {};
  for (const field of UPKEEP_FIELDS) {
    if (memory[field] !== undefined) out[field] = memory[field];
  }
  return out as Partial<Pick<MemoryRecord, UpkeepField>>;
}

/** The memory as a revision leaves it (a new object; the input is not changed). */
export function revised(memory: MemoryRecord, revision: MemoryRevision): MemoryRecord {
  const out: Record<string, unknown> = { ...memory };
  for (const field of UPKEEP_FIELDS) {
    const value = revision[field];
    if (value === null) delete out[field];
    else if (value !== undefined) out[field] = value;
  }
  if (revision.importance !== undefined) {
    out.importance = revision.importance;
    delete out.importancePending;
  }
  if (revision.lastAccessedAt !== undefined) out.lastAccessedAt = revision.lastAccessedAt;
  return out as MemoryRecord;
}
