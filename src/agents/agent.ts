/** @module Agents: a character in a world, seeded from its one-paragraph description (SPEC §3). */
import { z } from "zod";
import type { Deps } from "../deps.ts";
import { ConflictError, NotFoundError } from "../errors.ts";
import { AgentId, type AgentScope, MemoryId, type WorldId } from "../ids.ts";
import type { DocumentKey, Versioned } from "../ports/document_store.ts";
import { GameTime } from "../time/game_time.ts";

/** An agent as stored. Cognitive state (counters, pending work) lives here too. */
export const Agent = z
  .object({
    id: AgentId,
    worldId: z.string(),
    name: z.string(),
    age: z.number().int().nullable(),
    traits: z.array(z.string()),
    description: z.string(),
    createdAt: GameTime,
    /** Summed importance of memories since the last reflection (SPEC §4 trigger). */
    importanceSinceReflection: z.number().int().min(0),
    /** Memories stored while the importance model was down, scored on the next perceive. */
    pendingImportance: z.array(MemoryId),
    location: z.string().nullable(),
    action: z.string().nullable(),
  })
  .meta({ id: "Agent" });
export type Agent = z.infer<typeof Agent>;

/** Traits as a list, or one comma-separated string ("kind, curious"). */
const Traits = z
  .union([z.array(z.string().trim().min(1).max(100)).max(20), z.string().max(2000)])
  .transform((t) =>
    (typeof t === "string" ? t.split(",") : t).map((s) => s.trim()).filter((s) => s.length > 0)
  )
  .pipe(z.array(z.string().max(100)).max(20));

/** The body of `POST /v1/worlds/{world}/agents`. */
export const CreateAgentInput = z
  .strictObject({
    id: AgentId.optional().meta({ description: "Your own id; minted when absent" }),
    name: z.string().trim().min(1).max(100),
    age: z.number().int().min(0).max(1000).optional(),
    traits: Traits.optional(),
    description: z
      .string()
      .trim()
      .min(1)
      .max(8000)
      .meta({
        description: "One paragraph; each semicolon-separated phrase becomes a seed memory",
      }),
  })
  .meta({
    id: "CreateAgentInput",
    example: {
      name: "John Lin",
      age: 45,
      traits: ["patient", "kind", "organized"],
      description:
        "John Lin is a pharmacy shopkeeper at the Willow Market and Pharmacy who loves to help people; John Lin is living with his wife, Mei Lin, and son, Eddy Lin",
    },
  });
export type CreateAgentInput = z.infer<typeof CreateAgentInput>;

/** The document key of an agent. */
export function agentKey(scope: AgentScope): DocumentKey {
  return { collection: "agents", scope: scope.worldId, id: scope.agentId };
}

/** The seed phrases of a description: split on semicolons, trimmed, blanks dropped. */
export function seedPhrases(description: string): string[] {
  return description.split(";").map((s) => s.trim()).filter((s) => s.length > 0);
}

/** A new agent record (not yet stored). */
export function newAgent(
  deps: Pick<Deps, "ids">,
  worldId: WorldId,
  input: CreateAgentInput,
  now: GameTime,
): Agent {
  return {
    id: input.id ?? AgentId.parse(deps.ids.next("a")),
    worldId,
    name: input.name,
    age: input.age ?? null,
    traits: input.traits ?? [],
    description: input.description,
    createdAt: now,
    importanceSinceReflection: 0,
    pendingImportance: [],
    location: null,
    action: null,
  };
}

/**
 * Stores a new agent document.
 * @throws `conflict` when the id is taken in this world.
 */
export async function storeNewAgent(deps: Pick<Deps, "storage">, agent: Agent): Promise<void> {
  try {
    await deps.storage.documents.create(
      agentKey({ worldId: agent.worldId as WorldId, agentId: agent.id }),
      agent,
    );
  } catch (err) {
    if (err instanceof ConflictError) {
      throw new ConflictError(
        `Cannot create agent "${agent.id}" in world "${agent.worldId}": the id is taken, pick another`,
      );
    }
    throw err;
  }
}

/**
 * The agent document with its version.
 * @throws `agent_not_found` — also when the agent exists in another world.
 */
export async function loadAgent(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<Versioned<Agent>> {
  const doc = await deps.storage.documents.get<Agent>(agentKey(scope));
  if (!doc) {
    throw new NotFoundError(
      "agent_not_found",
      `Cannot find agent "${scope.agentId}" in world "${scope.worldId}": list agents with GET /v1/worlds/${scope.worldId}/agents`,
    );
  }
  return doc;
}

/** Every agent of a world, ordered by id. */
export async function listAgents(deps: Pick<Deps, "storage">, worldId: WorldId): Promise<Agent[]> {
  return (await deps.storage.documents.list<Agent>("agents", worldId)).map((d) => d.value);
}
