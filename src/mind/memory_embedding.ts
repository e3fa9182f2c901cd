/** @module Embed: the vectors of memories, new ones and ones that lost theirs (Generative Agents §4.1, relevance). */
import type { Deps, VectorEntry } from "../ports/mod.ts";
import { type AgentScope, emptyUsage, type MemoryRecord, type Usage } from "../domain/mod.ts";
import { embedAs } from "./_embed.ts";

/** The vector of each distinct text, and what embedding them cost. */
export interface MemoryVectors {
  vectorOf: ReadonlyMap<string, Float32Array>;
  usage: Usage;
}

/**
 * Embeds the texts of new memories in one call (operation `embedding`), each distinct text once;
 * no call when there is none.
 * @throws `model_*` when embedding fails.
 */
export async function embedNewMemories(
  scope: { worldId: string; agentId: string },
  texts: readonly string[],
  models: Pick<Deps, "embedder">,
): Promise<MemoryVectors> {
  const distinct = [...new Set(texts)];
  if (distinct.length === 0) return { vectorOf: new Map(), usage: emptyUsage() };
  const { vectors, usage } = await embedAs(models, scope, {
    texts: distinct,
    operation: "embedding",
  });
  return { vectorOf: new Map(distinct.map((t, i) => [t, vectors[i]])), usage };
}

/** Why memories are embedded again: the usage label each reason is counted under. */
export type EmbedAgainReason = "embedding.repair" | "embedding.import";

/**
 * Embeds stored memories again in one call, one vector entry per memory in order; no call when
 * there is none.
 * @throws `model_*` when embedding fails.
 */
export async function embedMemoriesAgain(
  scope: AgentScope,
  input: { memories: readonly MemoryRecord[]; operation: EmbedAgainReason },
  models: Pick<Deps, "embedder">,
): Promise<{ entries: VectorEntry[]; usage: Usage }> {
  const { memories, operation } = input;
  if (memories.length === 0) return { entries: [], usage: emptyUsage() };
  const { vectors, usage } = await embedAs(models, scope, {
    texts: memories.map((m) => m.description),
    operation,
  });
  return { entries: memories.map((m, j) => ({ id: m.id, vector: vectors[j] })), usage };
}
