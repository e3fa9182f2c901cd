/** @module The memory record: one entry of an agent's memory stream (Generative Agents §4.1). */
import { z } from "zod";
import { AgentId, type AgentScope, MemoryId, WorldId } from "../ids.ts";
import { GameTime } from "../time/mod.ts";
import { NotFoundError } from "../errors.ts";

/** What kind of experience a memory records. */
export const MemoryKind = z
  .enum(["seed", "observation", "chat", "reflection", "plan"])
  .meta({ id: "MemoryKind" });
export type MemoryKind = z.infer<typeof MemoryKind>;

/**
 * Where a memory came from: witnessed, told by someone, overheard from someone talking with
 * others nearby, the inner voice, a seed, the agent itself, or an event the game raised
 * (`trigger:<name>`).
 */
export const Provenance = z
  .union([
    z.enum(["witnessed", "inner_voice", "seed", "self"]),
    z.templateLiteral(["told_by:", z.string().min(1)]),
    z.templateLiteral(["trigger:", z.string().min(1)]),
    z.templateLiteral(["overheard:", z.string().min(1)]),
  ])
  .meta({ id: "Provenance", example: "told_by:Isabella Rodriguez" });
export type Provenance = z.infer<typeof Provenance>;

/** A memory as stored. Embeddings live in the vector index, keyed by the same id. */
export const MemoryRecord = z.object({
  id: MemoryId,
  worldId: WorldId,
  agentId: AgentId,
  kind: MemoryKind,
  description: z.string().min(1),
  createdAt: GameTime,
  lastAccessedAt: GameTime,
  /** Poignancy 1-10; 1 while `importancePending` waits for a model that failed. */
  importance: z.number().int().min(1).max(10),
  importancePending: z.boolean().optional(),
  provenance: Provenance,
  evidence: z.array(MemoryId).optional(),
  depth: z.number().int().min(0).optional(),
  location: z.string().optional(),
  subject: z.string().optional(),
  predicate: z.string().optional(),
  object: z.string().optional(),
  eventId: z.string().optional(),
  confidence: z.number().min(0).max(1).optional().meta({
    description:
      "How sure the agent is of it, 0–1: absent (1) for what it witnessed, said or was told; lower for what it overheard",
  }),
  keyId: z.string().optional().meta({
    description: "The API key whose request wrote this memory (e.g. what a player said)",
  }),
  archivedAt: GameTime.optional().meta({
    description:
      "Game time the memory left the live set under the world's memoryBudget; still listed with ?archived=true and retrieved with includeArchived",
  }),
  mergedInto: MemoryId.optional().meta({
    description:
      "The memory this near-identical one was consolidated into (it left the live set; the other cites it in evidence)",
  }),
  count: z.number().int().min(1).optional().meta({
    description:
      "How many near-identical experiences this memory stands for, once consolidation merged others into it",
  }),
  firstAt: GameTime.optional().meta({
    description: "With count: the game time of the first of them",
  }),
  lastAt: GameTime.optional().meta({
    description: "With count: the game time of the last of them",
  }),
  invalidAt: GameTime.optional().meta({
    description:
      "Game time a newer memory superseded this one (a fact that changed); kept, but left out of retrieval unless includeSuperseded",
  }),
  supersededBy: MemoryId.optional().meta({ description: "The memory that superseded this one" }),
});
export type MemoryRecord = z.infer<typeof MemoryRecord>;

/** The `memory_not_found` error of a memory the agent does not have. */
export function memoryNotFound(scope: AgentScope, id: MemoryId): NotFoundError {
  return new NotFoundError(
    "memory_not_found",
    `Cannot find memory "${id}" of agent "${scope.agentId}": list memories with GET /v1/worlds/${scope.worldId}/agents/${scope.agentId}/memories`,
  );
}
