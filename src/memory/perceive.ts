/** @module Perceive: store a batch of observations, idempotently, with one importance call and one embedding call (SPEC §3). */
import { z } from "zod";
import { type Agent, agentKey, loadAgent } from "../agents/agent.ts";
import { withAgentLock } from "../agents/agent_lock.ts";
import type { Deps } from "../deps.ts";
import { StoreUnavailableError } from "../errors.ts";
import { type AgentId, type AgentScope, MemoryId, type WorldId } from "../ids.ts";
import { UsageCounts } from "../model/usage.ts";
import { gameMinutes, GameTime } from "../time/game_time.ts";
import { getWorld, type World } from "../world/world.ts";
import { knownAreasAfter } from "../world/environment.ts";
import { type NewMemory, type PreparedMemories, prepareMemories, writeMemories } from "./ingest.ts";
import { MemoryRecord } from "../ports/memory_record.ts";

/** One observation an engine reports. */
export const Observation = z
  .strictObject({
    text: z.string().trim().min(1).max(2000),
    eventId: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .meta({ description: "Your id for the event; sending it again returns the same memory" }),
    at: GameTime.optional().meta({
      description: "Game time of the event; default: the world clock",
    }),
    location: z.string().trim().min(1).max(300).optional().meta({ example: "Hobbs Cafe:counter" }),
  })
  .meta({ id: "Observation" });
export type Observation = z.infer<typeof Observation>;

/** The body of `POST …/agents/{agent}/perceive`. */
export const PerceiveInput = z
  .strictObject({ observations: z.array(Observation).min(1).max(500) })
  .meta({
    id: "PerceiveInput",
    example: { observations: [{ text: "Isabella is decorating the cafe", eventId: "e-101" }] },
  });
export type PerceiveInput = z.infer<typeof PerceiveInput>;

/** What happened to each observation, in order. */
export const PerceiveOutcome = z.enum(["created", "existing", "deduplicated"]);

/** The response of perceive. */
export const PerceiveResult = z
  .object({
    memories: z.array(MemoryRecord),
    outcomes: z.array(PerceiveOutcome).meta({
      description:
        "Per observation: created, existing (known eventId) or deduplicated (same text within the retention window)",
    }),
    importanceSinceReflection: z.number().int(),
    reflectionDue: z.boolean(),
    importancePending: z.number().int().meta({
      description:
        "Memories stored with a provisional importance because the model failed; scored on a later perceive",
    }),
    reflections: z.array(MemoryRecord).meta({
      description:
        "Reflections stored by the automatic reflection (world setting autoReflect) that this perceive made due; empty otherwise, or when it failed (the next perceive tries again). importanceSinceReflection and reflectionDue describe the state before it",
    }),
    usage: UsageCounts,
  })
  .meta({ id: "PerceiveResult" });
export type PerceiveResult = z.infer<typeof PerceiveResult>;

type Outcome = z.infer<typeof PerceiveOutcome>;

/** What {@linkcode perceiveObservations} stored, and what its caller needs to reflect after it. */
export interface PerceivedObservations {
  result: Omit<PerceiveResult, "reflections">;
  /** The world as read before the observations were stored. */
  world: World;
  /** The latest observation's game time: when a due reflection happens. */
  at: GameTime;
}

/**
 * Stores observations as memories of one agent. Known `eventId`s return their memory; the same
 * text within the world's retention window is stored once; importance is scored in one call
 * (idle events get 1 without one) and embeddings in one call. Runs under the agent's lock, so
 * concurrent perceives neither lose nor duplicate anything. `result.reflectionDue` says whether
 * the agent should reflect now; memory never reflects itself: its caller decides (SPEC §4).
 *
 * @throws `world_not_found`, `agent_not_found`, `model_*` (embedding failed: nothing stored),
 * `store_unavailable`, `conflict` (agent busy too long).
 */
export async function perceiveObservations(
  deps: Deps,
  scope: AgentScope,
  input: PerceiveInput,
): Promise<PerceivedObservations> {
  const world = await getWorld(deps, scope.worldId);
  await loadAgent(deps, scope); // 404 before waiting on a lock
  const result = await withAgentLock(deps, scope, () => perceiveLocked(deps, world, scope, input));
  // Game times are fixed-width ISO strings, so the latest one sorts last.
  const at = input.observations.map((o) => o.at ?? world.clock.now).sort().at(-1)!;
  return { result, world, at };
}

/** An observation whose importance the caller already scored (e.g. batched across agents). */
export interface ScoredObservation extends Observation {
  /** 1–10; when absent, perceive scores it as usual. */
  importance?: number;
}

/**
 * The tick engine's perceive: as {@linkcode perceive}, for a world already read and with
 * importance the caller scored across agents (observations without a score are scored here),
 * and without the automatic reflection: the tick reflects after the agent acted.
 * @throws as {@linkcode perceive}.
 */
export async function perceiveScored(
  deps: Deps,
  world: World,
  agentId: AgentId,
  observations: readonly ScoredObservation[],
  options: { lockWaitMs?: number } = {},
): Promise<Omit<PerceiveResult, "reflections">> {
  const scope: AgentScope = { worldId: world.id as WorldId, agentId };
  return await withAgentLock(
    deps,
    scope,
    () => perceiveLocked(deps, world, scope, { observations }),
    { waitMs: options.lockWaitMs },
  );
}

async function perceiveLocked(
  deps: Pick<Deps, "storage" | "model" | "embedder" | "ids">,
  world: World,
  scope: AgentScope,
  input: { observations: readonly ScoredObservation[] },
): Promise<Omit<PerceiveResult, "reflections">> {
  const { memories: store, idempotency } = deps.storage;
  const agentDoc = await loadAgent(deps, scope);
  const agent = agentDoc.value;
  const idemScope = `${scope.worldId}/${scope.agentId}`;
  const obs = input.observations.map((o) => ({ ...o, at: o.at ?? world.clock.now }));

  const results: (MemoryRecord | undefined)[] = new Array(obs.length);
  const outcomes: Outcome[] = new Array(obs.length).fill("created");

  // 1. Known event ids return their memory (or reuse the id a crashed attempt claimed).
  const claimed = await Promise.all(
    obs.map((o) => o.eventId ? idempotency.get<string>(idemScope, `event:${o.eventId}`) : null),
  );
  const claimedIds = [...new Set(claimed.filter((id): id is string => id !== null))];
  const claimedRecords = await store.getMany(scope, claimedIds.map((id) => MemoryId.parse(id)));
  const byId = new Map(claimedRecords.filter((r) => r !== null).map((r) => [r!.id as string, r!]));
  const reuseId = new Map<number, string>();
  claimed.forEach((id, i) => {
    if (id === null) return;
    const record = byId.get(id);
    if (record) {
      results[i] = record;
      outcomes[i] = "existing";
    } else reuseId.set(i, id);
  });

  // 2. Within the batch, a repeated event id or repeated text points at its first occurrence;
  //    against the stream, the same text within the retention window is not stored again.
  const recent = await recentObservations(deps, scope, obs, world.settings.retentionMinutes);
  const firstOfEvent = new Map<string, number>();
  const firstOfText = new Map<string, number>();
  const sameAs = new Map<number, number>();
  const windowMin = world.settings.retentionMinutes;
  obs.forEach((o, i) => {
    if (results[i]) return;
    if (o.eventId !== undefined) {
      const first = firstOfEvent.get(o.eventId);
      if (first !== undefined) return void sameAs.set(i, first);
      firstOfEvent.set(o.eventId, i);
    }
    const key = textKey(o.text);
    const match = recent.find((r) =>
      textKey(r.description) === key &&
      Math.abs(gameMinutes(r.createdAt) - gameMinutes(o.at)) <= windowMin
    );
    if (match) {
      results[i] = match;
      outcomes[i] = "deduplicated";
      return;
    }
    const first = firstOfText.get(key);
    if (
      first !== undefined && Math.abs(gameMinutes(obs[first].at) - gameMinutes(o.at)) <= windowMin
    ) {
      sameAs.set(i, first);
      outcomes[i] = "deduplicated";
      return;
    }
    firstOfText.set(key, i);
  });

  // 3. Prepare new memories (importance + embeddings), including pending scores of earlier batches.
  const fresh = obs
    .map((o, i) => ({ o, i }))
    .filter(({ i }) => !results[i] && !sameAs.has(i));
  const newMemories: NewMemory[] = fresh.map(({ o, i }) => ({
    id: reuseId.get(i),
    description: o.text,
    kind: "observation",
    provenance: "witnessed",
    at: o.at,
    location: o.location,
    eventId: o.eventId,
    importance: o.importance,
  }));
  const pending = (await store.getMany(scope, agent.pendingImportance)).filter((r) => r !== null);
  const prepared = await prepareMemories(deps, agent, newMemories, pending as MemoryRecord[]);
  fresh.forEach(({ i }, j) => (results[i] = prepared.records[j]));
  for (const [i, first] of sameAs) {
    results[i] = results[first];
    if (outcomes[i] === "created") outcomes[i] = "existing";
  }

  // 4. Write: event claims, vectors, records, late importance, then the agent's counters.
  await Promise.all(
    fresh.filter(({ o }) => o.eventId !== undefined).map(({ o, i }) =>
      idempotency.claim(idemScope, `event:${o.eventId}`, results[i]!.id)
    ),
  );
  await writeMemories(deps, scope, prepared);
  // Perceiving a location in an area the agent did not know adds that area (SPEC §6).
  const knownAreas = await knownAreasAfter(
    deps,
    scope.worldId,
    agent.knownAreas ?? [],
    obs.map((o) => o.location),
  );
  const updated = await bumpCounters(
    deps,
    scope,
    agentDoc.version,
    { ...agent, knownAreas },
    prepared,
  );

  return {
    memories: results as MemoryRecord[],
    outcomes,
    importanceSinceReflection: updated.importanceSinceReflection,
    reflectionDue: updated.importanceSinceReflection >= world.settings.reflectionThreshold,
    importancePending: updated.pendingImportance.length,
    usage: prepared.usage,
  };
}

function textKey(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ");
}

async function recentObservations(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  obs: readonly { at: string }[],
  windowMin: number,
): Promise<MemoryRecord[]> {
  if (windowMin === 0) return [];
  const earliest = Math.min(...obs.map((o) => gameMinutes(o.at))) - windowMin;
  const page = await deps.storage.memories.list(scope, {
    kind: "observation",
    limit: 200,
    order: "desc",
  });
  return page.memories.filter((m) => gameMinutes(m.createdAt) >= earliest);
}

async function bumpCounters(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  version: number,
  agent: Agent,
  prepared: Pick<PreparedMemories, "addedImportance" | "stillPending" | "filledPending">,
): Promise<Agent> {
  const filled = new Set<string>(prepared.filledPending);
  const next: Agent = {
    ...agent,
    importanceSinceReflection: agent.importanceSinceReflection + prepared.addedImportance,
    pendingImportance: [
      ...agent.pendingImportance.filter((id) => !filled.has(id)),
      ...prepared.stillPending,
    ],
  };
  // We hold the agent's lock, so the version we read is still current.
  const written = await deps.storage.documents.replace(agentKey(scope), next, version);
  if (!written) {
    throw new StoreUnavailableError(
      `Cannot update the counters of agent "${scope.agentId}": it changed outside its lock; the memories are stored, retry with the same eventIds`,
    );
  }
  return next;
}
