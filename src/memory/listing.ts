/** @module Reading the memory stream: pages by kind and time, and one memory with its evidence. */
import { z } from "zod";
import { loadAgent } from "../agents/agent.ts";
import type { Deps } from "../deps.ts";
import { NotFoundError } from "../errors.ts";
import { type AgentScope, MemoryId } from "../ids.ts";
import { MemoryKind, MemoryRecord } from "../ports/memory_record.ts";

/** Query of `GET …/memories`. */
export const ListMemoriesQuery = z
  .strictObject({
    kind: MemoryKind.optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
    cursor: z.string().min(1).max(500).optional(),
    order: z.enum(["asc", "desc"]).default("desc"),
  });
export type ListMemoriesQuery = z.infer<typeof ListMemoriesQuery>;

/** A page of memories. */
export const MemoryPageBody = z
  .object({ memories: z.array(MemoryRecord), next: z.string().nullable() })
  .meta({ id: "MemoryPage" });
export type MemoryPageBody = z.infer<typeof MemoryPageBody>;

/** One memory; a reflection carries every memory its evidence rests on. */
export const MemoryWithEvidence = MemoryRecord.extend({
  evidenceChain: z.array(MemoryRecord).optional().meta({
    description: "For reflections: the evidence, and its evidence, breadth first",
  }),
  forgottenEvidence: z.array(MemoryId).optional().meta({
    description:
      "For reflections: evidence ids that were forgotten (DELETE …/memories/{memory}); the reflection keeps its text",
  }),
}).meta({ id: "MemoryWithEvidence" });
export type MemoryWithEvidence = z.infer<typeof MemoryWithEvidence>;

/** Pages through an agent's memories, newest first by default. */
export async function listMemories(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  query: ListMemoriesQuery,
): Promise<MemoryPageBody> {
  await loadAgent(deps, scope);
  return await deps.storage.memories.list(scope, query);
}

const MAX_CHAIN = 200;

/**
 * One memory; for a reflection, its evidence chain (evidence of evidence, breadth first, each
 * memory once, at most 200).
 * @throws `agent_not_found`, `memory_not_found`
 */
export async function getMemory(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  id: MemoryId,
): Promise<MemoryWithEvidence> {
  await loadAgent(deps, scope);
  const memory = await deps.storage.memories.get(scope, id);
  if (!memory) {
    throw new NotFoundError(
      "memory_not_found",
      `Cannot find memory "${id}" of agent "${scope.agentId}": list memories with GET /v1/worlds/${scope.worldId}/agents/${scope.agentId}/memories`,
    );
  }
  if (!memory.evidence?.length) return memory;
  const direct = await deps.storage.memories.getMany(scope, memory.evidence);
  const forgotten = memory.evidence.filter((_, i) => direct[i] === null);
  const seen = new Set<string>([memory.id]);
  const chain: MemoryRecord[] = [];
  let frontier = memory.evidence.filter((e) => !seen.has(e));
  while (frontier.length > 0 && chain.length < MAX_CHAIN) {
    frontier.forEach((e) => seen.add(e));
    const found = (await deps.storage.memories.getMany(scope, frontier)).filter(
      (m): m is MemoryRecord => m !== null,
    );
    chain.push(...found.slice(0, MAX_CHAIN - chain.length));
    frontier = [...new Set(found.flatMap((m) => m.evidence ?? []))].filter((e) => !seen.has(e));
  }
  return forgotten.length > 0
    ? { ...memory, evidenceChain: chain, forgottenEvidence: forgotten }
    : { ...memory, evidenceChain: chain };
}
