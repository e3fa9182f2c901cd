/**
 * @module An agent's relationships and mood in storage (issue 22): updated as its memories are
 * written, from what the importance call already rated, and read by the API, replies and
 * reactions. One document per agent in the world's `bonds` collection.
 */
import { type Deps, type DocumentKey, type Lease, updateDocument } from "../../ports/mod.ts";
import {
  type Agent,
  type AgentScope,
  Bonds,
  bondsAfter,
  type MemoryRecord,
  MOOD_MIN_IMPORTANCE,
  moodBaseline,
  type SocialEvent,
} from "../../domain/mod.ts";

/** Where an agent's relationships and mood live. */
export function bondsKey(scope: AgentScope): DocumentKey {
  return { collection: "bonds", scope: scope.worldId, id: scope.agentId };
}

/** What a batch of prepared memories carries for {@linkcode recordBonds}. */
export interface SocialBatch {
  agent: Pick<Agent, "name" | "traits" | "description">;
  /** Per record, how it felt from -1 to 1, null when unrated. */
  valence: readonly (number | null)[];
}

/**
 * Whether a memory can change a relationship or the mood: something someone told or did to the
 * agent, something it said to someone, a reflection, or anything important or felt (not a plan or
 * a seed). Routine sights skip the read entirely, so most tick memories cost no storage call here.
 */
function mayMatter(record: MemoryRecord, valence: number | null): boolean {
  // Plans are the agent's own intentions, seeds its past: neither is something that happened.
  if (record.kind === "plan" || record.kind === "seed") return false;
  return record.provenance.startsWith("told_by:") ||
    (record.provenance === "self" && record.kind === "chat") ||
    record.kind === "reflection" || record.importance >= MOOD_MIN_IMPORTANCE ||
    (valence ?? 0) !== 0;
}

/**
 * Moves the agent's relationships and mood by memories just written (no model call: the valence
 * came with their importance). Fenced like the memories, so a step that lost its lease writes
 * nothing more.
 * @throws `store_unavailable`, `conflict` (lost lease, or writes kept racing).
 */
export async function recordBonds(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  batch: SocialBatch & { records: readonly MemoryRecord[]; fence?: Lease },
): Promise<void> {
  const events: SocialEvent[] = batch.records
    .map((r, i) => ({ r, v: batch.valence[i] ?? null }))
    .filter(({ r, v }) => !r.importancePending && mayMatter(r, v))
    .map(({ r, v }) => ({
      memoryId: r.id,
      kind: r.kind,
      provenance: r.provenance,
      description: r.description,
      importance: r.importance,
      valence: v,
      at: r.createdAt,
    }));
  if (events.length === 0) return;
  const context = { self: batch.agent.name, baseline: moodBaseline(batch.agent) };
  await updateDocument<Bonds>(deps.storage.documents, bondsKey(scope), {
    change: (current) => bondsAfter(current, events, context),
    fence: batch.fence,
    conflict: `Cannot update the relationships of agent "${scope.agentId}": it kept changing`,
  });
}

/** The agent's relationships and mood as stored, or null when it has met no one and felt nothing. */
export async function loadBonds(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<Bonds | null> {
  return (await deps.storage.documents.get<Bonds>(bondsKey(scope)))?.value ?? null;
}
