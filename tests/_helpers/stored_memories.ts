/**
 * @module Memories written straight to a store with their embeddings, for tests and benchmarks
 * that need many of them without paying for perceive(); and the words their descriptions use.
 */
import type { Deps } from "../../src/ports/deps.ts";
import { type AgentScope, MemoryId } from "../../src/domain/ids.ts";
import { fromGameMinutes, gameMinutes } from "../../src/domain/time/game_time.ts";
import type { MemoryRecord } from "../../src/domain/memory/memory_record.ts";

/** Who a generated memory is about: Smallville's residents, in a fixed order. */
export const TOWN_SUBJECTS = [
  "Isabella",
  "Klaus",
  "Maria",
  "Sam",
  "Tom",
  "Carmen",
  "John",
  "Mei",
  "Eddy",
  "Ayesha",
  "Wolfgang",
  "Jennifer",
] as const;

/** Embeds `records` and stores vectors, then memories, as the core's memory writer orders them. */
export async function storeEmbedded(
  deps: Pick<Deps, "storage" | "embedder">,
  scope: AgentScope,
  records: readonly MemoryRecord[],
): Promise<void> {
  const { vectors } = await deps.embedder.embed(records.map((r) => r.description), {
    operation: "fixture",
  });
  await deps.storage.vectors.upsert(
    scope,
    records.map((r, i) => ({ id: r.id, vector: vectors[i] })),
  );
  await deps.storage.memories.append(scope, records);
}

const BENCH_PLACES = ["Hobbs Cafe", "the library", "the park", "the pharmacy", "the college"];
const BENCH_ACTS = ["arranging flowers", "reading a novel", "talking with Sam", "buying medicine"];

/**
 * Observations `from` (inclusive) to `to` (exclusive) of a benchmark's agent, one a game minute
 * from 2023-02-13 07:00, ~70 characters each, importance cycling 1–10, ids `m` + `i` padded.
 */
export function benchObservations(
  scope: AgentScope,
  range: { from: number; to: number },
  options: { subject: string; idDigits: number },
): MemoryRecord[] {
  const start = gameMinutes("2023-02-13T07:00:00");
  const records: MemoryRecord[] = [];
  for (let i = range.from; i < range.to; i++) {
    const at = fromGameMinutes(start + i);
    records.push({
      id: MemoryId.parse(`m${String(i).padStart(options.idDigits, "0")}`),
      ...scope,
      kind: "observation",
      description: `${options.subject} saw someone ${BENCH_ACTS[i % BENCH_ACTS.length]} at ${
        BENCH_PLACES[(i * 7) % BENCH_PLACES.length]
      }, moment ${i}`,
      createdAt: at,
      lastAccessedAt: at,
      importance: 1 + (i % 10),
      provenance: "witnessed",
    });
  }
  return records;
}
