/**
 * @module Agents in storage: mint, store, load and list agent documents, and the areas an agent
 * starts out knowing.
 */
import { type Deps, type DocumentKey, requireDocument, type Versioned } from "../../ports/mod.ts";
import {
  Agent,
  AgentId,
  agentNotFound,
  type AgentScope,
  ConflictError,
  CreateAgentInput,
  findArea,
  GameTime,
  SimulacraError,
  sleepLocation,
  type WorldId,
} from "../../domain/mod.ts";
import { checkedFirst, loadEnvironment, type OwnedDataOperation } from "../world/mod.ts";

/** The document key of an agent. */
export function agentKey(scope: AgentScope): DocumentKey {
  return { collection: "agents", scope: scope.worldId, id: scope.agentId };
}
/** A new agent record (not yet stored) of world `worldId`, created at game time `seed.now`. */
export function newAgent(
  deps: Pick<Deps, "ids">,
  worldId: WorldId,
  seed: { input: CreateAgentInput; now: GameTime },
): Agent {
  const { input, now } = seed;
  return {
    id: input.id ?? AgentId.parse(deps.ids.next("a")),
    worldId,
    ...(input.kind === "player" ? { kind: "player" as const } : {}),
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
 * The agent's home and workplace as the environment spells them, the areas it knows at creation
 * (home, workplace and every common area) and where it starts: where it sleeps at home (its own
 * room in a shared home), so a new town shows everyone at home before the first tick; nowhere
 * yet without a home. Call it before spending any model call.
 * @throws `unprocessable` when home or workplace is not an area of the world.
 */
export async function startingAreas(
  deps: Pick<Deps, "storage">,
  agent: Agent,
): Promise<Pick<Agent, "home" | "workplace" | "knownAreas" | "location">> {
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
  const location = home === null ? agent.location : sleepLocation(env, { ...agent, home });
  return { home, workplace, knownAreas, location };
}
/**
 * The agent document with its version.
 * @throws `agent_not_found` — also when the agent exists in another world.
 */
export async function loadAgent(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
): Promise<Versioned<Agent>> {
  return await requireDocument(deps.storage.documents, agentKey(scope), () => agentNotFound(scope));
}
/** Every agent of a world, ordered by id. */
export async function listAgents(deps: Pick<Deps, "storage">, worldId: WorldId): Promise<Agent[]> {
  return (await deps.storage.documents.list<Agent>("agents", worldId)).map((d) => d.value);
}
/** `operation` answering `agent_not_found` before it reads or writes anything. */
export function ofExistingAgent<I, O>(
  operation: OwnedDataOperation<AgentScope, I, O>,
): OwnedDataOperation<AgentScope, I, O> {
  return checkedFirst(loadAgent, operation);
}
