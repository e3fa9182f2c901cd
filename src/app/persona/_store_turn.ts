/** @module Storing a reply's memories under the agent's lock: the turn's records, what they supersede, the counters. */
import {
  type Agent,
  type AgentScope,
  ConflictError,
  type MemoryId,
  type MemoryKind,
  type MemoryRecord,
  type Provenance,
  type Usage,
} from "../../domain/mod.ts";
import { agentKey, loadAgent } from "../agents/mod.ts";
import type { Deps } from "../../ports/mod.ts";
import {
  type NewMemory,
  prepareMemories,
  replySupersession,
  writeMemories,
} from "../memory/mod.ts";

/**
 * Writes a turn's memories (importance known: one embedding call) and bumps the counters; the
 * shown memory the reply names in `supersedes` is marked superseded by what the speaker said.
 */
export async function storeTurn(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  scope: AgentScope,
  turn: { items: NewMemory[]; shown: MemoryRecord[]; supersedes?: number | null },
): Promise<
  { records: { id: MemoryId; kind: MemoryKind; provenance: Provenance }[]; usage: Usage }
> {
  const doc = await loadAgent(deps, scope);
  const prepared = await prepareMemories(deps, doc.value, { items: turn.items });
  const told = prepared.records.find((r) => r.provenance.startsWith("told_by:"));
  const supersedes = told === undefined
    ? []
    : replySupersession(turn.shown, { record: told, supersedes: turn.supersedes });
  await writeMemories(deps, scope, { prepared: { ...prepared, supersedes } });
  const next: Agent = {
    ...doc.value,
    importanceSinceReflection: doc.value.importanceSinceReflection + prepared.addedImportance,
  };
  const read = { expectedVersion: doc.version }; // still current: we hold the agent's lock
  if (!(await deps.storage.documents.replace(agentKey(scope), next, read))) {
    throw new ConflictError(
      `Cannot update the counters of agent "${scope.agentId}": it changed outside its lock; the reply's memories are stored`,
    );
  }
  return { records: prepared.records, usage: prepared.usage };
}
