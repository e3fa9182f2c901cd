/**
 * @module Reading the memory stream: pages by kind and time, and one memory with its evidence
 * chain.
 */
import { ofExistingAgent } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import {
  type AgentScope,
  ListMemoriesQuery,
  MemoryId,
  memoryNotFound,
  MemoryPageBody,
  MemoryRecord,
  MemoryWithEvidence,
} from "../../domain/mod.ts";

/** Pages through an agent's live memories (or, with `archived`, the others), newest first by default. */
export const listMemories = ofExistingAgent<ListMemoriesQuery, MemoryPageBody>(
  async (deps, scope, { archived, ...query }) =>
    await deps.storage.memories.list(scope, {
      ...query,
      status: archived === "true" ? "archived" : "live",
    }),
);
const MAX_CHAIN = 200;
/**
 * One memory; for a reflection, its evidence chain (evidence of evidence, breadth first, each
 * memory once, at most 200).
 * @throws `agent_not_found`, `memory_not_found`
 */
export const getMemory = ofExistingAgent(readMemoryWithEvidence);
/** The memory `id` with its evidence chain; the agent is already checked. */
async function readMemoryWithEvidence(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  id: MemoryId,
): Promise<MemoryWithEvidence> {
  const memory = await deps.storage.memories.get(scope, id);
  if (!memory) throw memoryNotFound(scope, id);
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
