/**
 * @module Ranking from candidates, then the records of the memories returned (retrieval on a
 * backend without exhaustive search, Generative Agents §4.1).
 */
import type { AgentScope, MemoryId, Scored } from "../../domain/mod.ts";
import type { MemoryRankFields, MemoryStore, Storage } from "../../ports/mod.ts";
import { type CandidateOptions, rankFromCandidates } from "./candidates.ts";

/** `rankOnce`'s options, as ranking from candidates reads them (`RankMemoriesOptions`). */
export interface CandidatePassOptions extends CandidateOptions {
  query: Float32Array;
  /** Stop (marking nothing) when a candidate has no vector, so it can be repaired first. */
  repairFirst?: boolean;
  markAccessed?: boolean;
  marked?: ReadonlySet<MemoryId>;
  hold?: boolean;
}

/** A pass from candidates (`rankOnce`'s): `Ranking` and the candidates found without a vector. */
export interface CandidatePass {
  ranked: Scored[];
  candidates: number;
  exact: false;
  bounded: boolean;
  withoutVector: MemoryId[];
  marked?: MemoryId[];
  held?: Scored<MemoryRankFields>[];
}

/**
 * `rankOnce` from candidates: rank fields first, records only for the k returned, read in the
 * request that marks them accessed; with `hold`, neither (the caller reads and marks them).
 */
export async function rankCandidates(
  storage: Storage,
  scope: AgentScope,
  options: CandidatePassOptions,
): Promise<CandidatePass> {
  const found = await rankFromCandidates(storage, { scope, query: options.query }, options);
  if (options.repairFirst && found.withoutVector.length > 0) {
    return { ...found, ranked: [], exact: false as const };
  }
  const chosen = found.ranked.map((s) => s.memory.id);
  const marked = options.markAccessed ? unmarked(chosen, options.marked) : undefined;
  const pass = { ...found, exact: false as const, ...(marked ? { marked } : {}) };
  if (options.hold && marked) return { ...pass, ranked: [], held: found.ranked };
  const [ranked] = await withRecords(storage.memories, scope, {
    rankings: [found.ranked],
    mark: marked ?? [],
    at: options.at,
  });
  return { ...pass, ranked };
}

/**
 * The rankings with their memories' records (a memory removed since its rank fields were read is
 * left out), read in one request with marking `markFirst` then `mark` accessed at `at` (queued
 * in that order around the reads, so they see the records after the first marks and before the
 * others).
 */
export async function withRecords(
  memories: MemoryStore,
  scope: AgentScope,
  { rankings, markFirst = [], mark, at }: {
    rankings: readonly Scored<MemoryRankFields>[][];
    markFirst?: readonly MemoryId[];
    mark: readonly MemoryId[];
    at: string;
  },
): Promise<Scored[][]> {
  const [, records] = await Promise.all([
    markFirst.length > 0 ? memories.touch(scope, markFirst, at) : undefined,
    memories.getMany(scope, rankings.flat().map((s) => s.memory.id)),
    mark.length > 0 ? memories.touch(scope, mark, at) : undefined,
  ]);
  // As read after the first marks on any store (one whose calls may overlap included).
  const first = new Set(markFirst);
  let next = 0;
  return rankings.map((ranking) =>
    ranking.flatMap((s) => {
      const memory = records[next++];
      if (!memory) return [];
      return [{ ...s, memory: first.has(memory.id) ? { ...memory, lastAccessedAt: at } : memory }];
    })
  );
}

/** The ids to mark accessed: those not already `marked`. */
export function unmarked(ids: MemoryId[], marked: ReadonlySet<MemoryId> | undefined): MemoryId[] {
  return marked ? ids.filter((id) => !marked.has(id)) : ids;
}
