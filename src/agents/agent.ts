/** @module Agents: a character in a world, seeded from its one-paragraph description (Generative Agents §4.1). */
import { z } from "zod";
import type { Deps } from "../deps.ts";
import { ConflictError, NotFoundError, SimulacraError } from "../errors.ts";
import { AgentId, type AgentScope, MemoryId, type WorldId } from "../ids.ts";
import type { DocumentKey, Versioned } from "../ports/document_store.ts";
import { GameTime } from "../time/game_time.ts";
import { findArea, loadEnvironment } from "../world/environment.ts";

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
    /** Summed importance of memories since the last reflection (Generative Agents §4.2 trigger). */
    importanceSinceReflection: z.number().int().min(0),
    /** Memories stored while the importance model was down, scored on the next perceive. */
    pendingImportance: z.array(MemoryId),
    location: z.string().nullable(),
    action: z.string().nullable(),
    /** The area the agent lives in, spelled as in the environment (Generative Agents §5). */
    home: z.string().nullable(),
    workplace: z.string().nullable(),
    /** Areas of the environment the agent knows: home, workplace, common areas, and perceived ones. */
    knownAreas: z.array(z.string()),
  })
  .meta({ id: "Agent" });
export type Agent = z.infer<typeof Agent>;

/** An area name of the world's environment, matched case-insensitively. */
const AreaName = z.string().trim().min(1).max(100);

/** Traits as a list, or one comma-separated string ("kind, curious"). */
export const Traits = z
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
    home: AreaName.optional().meta({
      description: "An area of the world's environment where the agent lives",
    }),
    workplace: AreaName.optional().meta({
      description: "An area of the world's environment where the agent works",
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

/**
 * The idempotency scope of what an agent claimed once (perceived event ids, its pair decision of
 * a tick): removed with the agent.
 */
export function agentIdempotencyScope(scope: AgentScope): string {
  return `${scope.worldId}/${scope.agentId}`;
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
    home: input.home ?? null,
    workplace: input.workplace ?? null,
    knownAreas: [],
  };
}

/**
 * Stores a new agent document. First completes the record in place from the world's
 * environment: `home` and `workplace` take the environment's spelling, and `knownAreas` become
 * home, workplace and every area marked `common`.
 * @throws `unprocessable` when `home` or `workplace` is not an area of the environment (or the
 * world has none); `conflict` when the id is taken in this world.
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
 * The agent's home and workplace as the environment spells them, and the areas it knows at
 * creation (home, workplace and every common area). Call it before spending any model call.
 * @throws `unprocessable` when home or workplace is not an area of the world.
 */
export async function startingAreas(
  deps: Pick<Deps, "storage">,
  agent: Agent,
): Promise<Pick<Agent, "home" | "workplace" | "knownAreas">> {
  const env = await loadEnvironment(deps, agent.worldId);
  const canonical = (field: "home" | "workplace"): string | null => {
    const name = agent[field];
    if (name === null) return null;
    const area = env ? findArea(env, name) : undefined;
    if (!area) {
      const fix = env
        ? `use one of ${env.areas.slice(0, 10).map((a) => `"${a.name}"`).join(", ")}`
        : `set the environment first with PUT /v1/worlds/${agent.worldId}/environment`;
      throw new SimulacraError(
        "unprocessable",
        `Cannot create agent "${agent.id}": ${field} "${name}" is not an area of world "${agent.worldId}": ${fix}`,
        { details: { field } },
      );
    }
    return area.name;
  };
  const home = canonical("home");
  const workplace = canonical("workplace");
  const common = env?.areas.filter((a) => a.common).map((a) => a.name) ?? [];
  const knownAreas = [...new Set([home, workplace, ...common].filter((a) => a !== null))];
  return { home, workplace, knownAreas };
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
  if (!doc) throw agentNotFound(scope);
  return doc;
}

/** Every agent of a world, ordered by id. */
export async function listAgents(deps: Pick<Deps, "storage">, worldId: WorldId): Promise<Agent[]> {
  return (await deps.storage.documents.list<Agent>("agents", worldId)).map((d) => d.value);
}

/**
 * The `agent_not_found` error of an agent, e.g. when its document vanished during an update, or
 * when the caller's key may not see it (the same error, so keys cannot probe for ids).
 */
export function agentNotFound(scope: { worldId: string; agentId: string }): NotFoundError {
  return new NotFoundError(
    "agent_not_found",
    `Cannot find agent "${scope.agentId}" in world "${scope.worldId}": list agents with GET /v1/worlds/${scope.worldId}/agents`,
  );
}
