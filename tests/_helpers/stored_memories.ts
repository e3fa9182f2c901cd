/**
 * @module Memories written straight to a store with their embeddings, for tests and benchmarks
 * that need many of them without paying for perceive(); and the words their descriptions use.
 */
import type { Deps } from "../../src/ports/deps.ts";
import type { AgentScope } from "../../src/domain/ids.ts";
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
