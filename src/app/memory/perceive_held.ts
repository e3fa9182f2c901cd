/**
 * @module Perceive inside an agent's transaction: dedupe by event id and text, score and embed
 * what is new, write it with its claims, bump the counters (Generative Agents §4.1).
 */
import { z } from "zod";
import {
  type Agent,
  agentIdempotencyScope,
  agentNotFound,
  type AgentScope,
  ConflictError,
  fromGameMinutes,
  gameMinutes,
  GameTime,
  MemoryId,
  MemoryRecord,
  Observation,
  Perceived,
  PerceiveOutcome,
  ScoredObservation,
  type World,
  type WorldId,
} from "../../domain/mod.ts";
import { agentKey, type AgentTransaction } from "../agents/mod.ts";
import {
  type Deps,
  type Lease,
  type ListMemoriesOptions,
  updateDocument,
} from "../../ports/mod.ts";
import type { DeclaredRead } from "../engine/mod.ts";
import { knownAreasAfter } from "../world/mod.ts";
import { type NewMemory, type PreparedMemories, prepareMemories, writeMemories } from "./ingest.ts";
import { budgetOf } from "./upkeep.ts";

type Outcome = z.infer<typeof PerceiveOutcome>;
/**
 * The reads perceiving `observations` makes besides the agent (the event ids' claims and the
 * recent observations, for dedupe), as data: a transaction started with them makes them in its
 * begin round trip, and {@linkcode perceiveHeld} then makes the same calls at no cost.
 */
export function perceiveReads(
  world: World,
  scope: AgentScope,
  observations: readonly Observation[],
): DeclaredRead[] {
  const obs = withTimes(world, observations);
  const idemScope = agentIdempotencyScope(scope);
  const recent = recentQuery(obs, world.settings.retentionMinutes);
  return [
    ...obs.flatMap((o) =>
      o.eventId === undefined ? [] : [{ claim: { scope: idemScope, key: eventKey(o.eventId) } }]
    ),
    ...recent === null ? [] : [{ memories: { scope, options: recent } }],
  ];
}
/**
 * Stores observations as memories of the transaction's agent. Known `eventId`s return their
 * memory; the same text within the world's retention window is stored once; importance is
 * scored in one call (idle events and observations scored by the caller, e.g. a tick across
 * agents, get theirs without one) and embeddings in one call. That importance call is also shown
 * the live memories nearest the observations it scores and names the one each updates, which is
 * then marked superseded (`supersededBy`, `invalidAt`). The agent's lease, held by the
 * transaction, keeps concurrent perceives from losing or duplicating anything.
 * `result.reflectionDue` says whether the agent should reflect now; memory never reflects
 * itself: its caller decides (Generative Agents §4.2).
 * @throws `model_*` (embedding failed: nothing stored), `conflict` (an event id stored with
 * another text), `store_unavailable`.
 */
export async function perceiveHeld(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  tx: AgentTransaction,
  observations: readonly ScoredObservation[],
): Promise<Perceived> {
  const { world, agent, lease: fence } = tx;
  const scope: AgentScope = { worldId: world.id as WorldId, agentId: agent.id };
  const d = { ...deps, storage: tx.storage };
  const store = tx.storage.memories;
  // 1. Read what deciding needs together (one pipelined request on the hosted backend, or none
  //    of its own when the transaction declared them): the event ids' claims and the recent
  //    observations (dedupe), the memories scored late.
  const obs = withTimes(world, observations);
  const idemScope = agentIdempotencyScope(scope);
  const query = recentQuery(obs, world.settings.retentionMinutes);
  const [claimed, recent, pendingRecords] = await Promise.all([
    Promise.all(
      obs.map((o) =>
        o.eventId ? tx.storage.idempotency.get<string>(idemScope, eventKey(o.eventId)) : null
      ),
    ),
    query === null ? [] : recentObservations(d, scope, query),
    store.getMany(scope, agent.pendingImportance),
  ]);

  const results: (MemoryRecord | undefined)[] = new Array(obs.length);
  const outcomes: Outcome[] = new Array(obs.length).fill("created");

  // Known event ids return their memory (or reuse the id an earlier attempt claimed).
  const claimedIds = [...new Set(claimed.filter((id): id is string => id !== null))];
  const claimedRecords = await store.getMany(scope, claimedIds.map((id) => MemoryId.parse(id)));
  const byId = new Map(claimedRecords.filter((r) => r !== null).map((r) => [r!.id as string, r!]));
  const reuseId = new Map<number, string>();
  claimed.forEach((id, i) => {
    if (id === null) return;
    const record = byId.get(id);
    if (record && textKey(record.description) !== textKey(obs[i].text)) {
      throw new ConflictError(
        `Cannot perceive observation ${i}: event "${
          obs[i].eventId
        }" is already stored with another text ("${record.description}"): send a new eventId for a different event`,
        { details: { index: i, eventId: obs[i].eventId, storedText: record.description } },
      );
    }
    if (record) {
      results[i] = record;
      outcomes[i] = "existing";
    } else reuseId.set(i, id);
  });

  // 2. Within the batch, a repeated event id or repeated text points at its first occurrence;
  //    against the stream, the same text within the retention window is not stored again.
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

  // 3. Give each new event an id, claimed for it with the memory's append (atomic with it, and
  //    fenced by the agent's lease: a holder whose lock expired mid-call writes neither). Then
  //    prepare the new memories (importance + embeddings), including pending scores of earlier
  //    batches.
  const fresh = obs
    .map((o, i) => ({ o, i }))
    .filter(({ i }) => !results[i] && !sameAs.has(i));
  for (const { o, i } of fresh) {
    if (o.eventId !== undefined && !reuseId.has(i)) reuseId.set(i, deps.ids.next("m"));
  }
  const claims = fresh.flatMap(({ o, i }) =>
    o.eventId === undefined
      ? []
      : [{ scope: idemScope, key: eventKey(o.eventId), value: reuseId.get(i) }]
  );
  const newMemories: NewMemory[] = fresh.map(({ o, i }) => ({
    id: reuseId.get(i),
    description: o.text,
    kind: "observation",
    provenance: o.provenance ?? "witnessed",
    at: o.at,
    location: o.location,
    eventId: o.eventId,
    importance: o.importance,
  }));
  const pending = pendingRecords.filter((r): r is MemoryRecord => r !== null);
  const prepared = await prepareMemories(d, agent, {
    items: newMemories,
    pending,
    supersede: tx.storage,
  });
  fresh.forEach(({ i }, j) => (results[i] = prepared.records[j]));
  for (const [i, first] of sameAs) {
    results[i] = results[first];
    if (outcomes[i] === "created") outcomes[i] = "existing";
  }

  // 4. Write: vectors, then records with their claims (one Vector and one Redis request on the
  //    hosted backend), late importance, then the agent's counters. The record append and the
  //    counters are fenced by the agent's lease: a holder that lost it writes nothing.
  await writeMemories(d, scope, { prepared, fence, claims, budget: budgetOf(world) });
  // Perceiving a location in an area the agent did not know adds that area (Generative Agents §5).
  const knownAreas = await knownAreasAfter(d, scope.worldId, {
    known: agent.knownAreas ?? [],
    locations: obs.map((o) => o.location),
  });
  const updated = await bumpCounters(d, scope, { knownAreas, fence, prepared });
  const result = {
    memories: results as MemoryRecord[],
    outcomes,
    importanceSinceReflection: updated.importanceSinceReflection,
    reflectionDue: updated.importanceSinceReflection >= world.settings.reflectionThreshold,
    importancePending: updated.pendingImportance.length,
    usage: prepared.usage,
  };
  return { result, agent: updated };
}
/** The observations with their times (default: the world clock). */
function withTimes<O extends Observation>(
  world: World,
  observations: readonly O[],
): (O & { at: GameTime })[] {
  return observations.map((o) => ({ ...o, at: o.at ?? world.clock.now }));
}
/** The idempotency key of an observation's event id (its value: the memory's id). */
function eventKey(eventId: string): string {
  return `event:${eventId}`;
}
function textKey(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, " ");
}
/** The page of observations within the retention window of the batch's times (null: none). */
function recentQuery(
  obs: readonly { at: string }[],
  windowMin: number,
): ListMemoriesOptions | null {
  if (windowMin === 0) return null;
  const earliest = Math.min(...obs.map((o) => gameMinutes(o.at))) - windowMin;
  return { kind: "observation", limit: 200, order: "desc", since: fromGameMinutes(earliest) };
}
async function recentObservations(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  query: ListMemoriesOptions,
): Promise<MemoryRecord[]> {
  const page = await deps.storage.memories.list(scope, query);
  const earliest = gameMinutes(query.since!);
  return page.memories.filter((m) => gameMinutes(m.createdAt) >= earliest);
}
async function bumpCounters(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  change: {
    knownAreas: string[];
    fence: Lease;
    prepared: Pick<PreparedMemories, "addedImportance" | "stillPending" | "filledPending">;
  },
): Promise<Agent> {
  const { prepared } = change;
  const filled = new Set<string>(prepared.filledPending);
  // Under the lease nobody else changes the counters, but other fields of the agent (a PATCH)
  // may change outside it: the transaction's commit then lays these fields over the fresh
  // version (`WorkNeeds.rebase`).
  const updated = await updateDocument<Agent>(deps.storage.documents, agentKey(scope), {
    change: (agent) => {
      if (agent === null) throw agentNotFound(scope);
      return {
        ...agent,
        knownAreas: [...new Set([...(agent.knownAreas ?? []), ...change.knownAreas])],
        importanceSinceReflection: agent.importanceSinceReflection + prepared.addedImportance,
        pendingImportance: [
          ...agent.pendingImportance.filter((id) => !filled.has(id)),
          ...prepared.stillPending,
        ],
      };
    },
    create: false,
    fence: change.fence,
    conflict:
      `Cannot update the counters of agent "${scope.agentId}": it kept changing; the memories are stored, retry with the same eventIds`,
  });
  return updated!;
}
