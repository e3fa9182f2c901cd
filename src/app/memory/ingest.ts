/** @module Turns new experiences into memory records: importance, embeddings, then one atomic write. */
import {
  addUsage,
  type Agent,
  type AgentScope,
  type GameTime,
  isIdle,
  MemoryId,
  type MemoryKind,
  type MemoryRecord,
  type Provenance,
  type Usage,
} from "../../domain/mod.ts";
import type { AppendOptions, Deps, Storage, VectorEntry } from "../../ports/mod.ts";
import { embedNewMemories, scoreImportance } from "../../mind/mod.ts";
import { archiveOverBudget, type MemoryBudget } from "./upkeep.ts";
import { recordBonds, type SocialBatch } from "../social/mod.ts";
import {
  earlierMemories,
  supersedeRevisions,
  type Supersession,
  supersessions,
} from "./supersession.ts";

/** An experience to remember. */
export interface NewMemory {
  /** A reserved id (e.g. claimed by an event id); minted when absent. */
  id?: string;
  description: string;
  kind: MemoryKind;
  provenance: Provenance;
  at: GameTime;
  location?: string;
  eventId?: string;
  /** A known importance skips the model (e.g. reflections scored with their insight). */
  importance?: number;
  evidence?: MemoryId[];
  depth?: number;
  /** The API key whose request wrote it (provenance of what a client said). */
  keyId?: string;
  /** How it felt, -1 to 1, when known already (a reply rates it); else the importance call rates it. */
  valence?: number | null;
}

/** What {@linkcode prepareMemories} prepares. */
export interface NewMemories {
  items: readonly NewMemory[];
  /** Earlier memories stored with a provisional importance, to score in the same call. */
  pending?: readonly MemoryRecord[];
  /**
   * The agent's stores, to look for the memories the new ones update: the live memories
   * nearest those the model scores are shown to the same importance call, which names the one
   * each updates (README "Memory upkeep"). @default no lookup
   */
  supersede?: Pick<Storage, "vectors" | "memories">;
}

/** Records and vectors ready to write, with what preparing them cost. */
export interface PreparedMemories {
  records: MemoryRecord[];
  vectors: VectorEntry[];
  usage: Usage;
  /** Importance to add to the reflection counter (new scores and late scores of pending ones). */
  addedImportance: number;
  /** New records stored with a provisional importance. */
  stillPending: MemoryId[];
  /** Earlier pending memories scored now, with their scores. */
  filled: { id: MemoryId; importance: number }[];
  filledPending: MemoryId[];
  /** Earlier memories the new ones update (with `supersede`), marked when written. */
  supersedes?: Supersession[];
  /** Who stored them and how each felt: what moves relationships and mood when written. */
  social?: SocialBatch;
}

/**
 * Embeds and scores new memories without writing anything: one embedding call, then one
 * fast-model call for every importance still unknown (new ones and `pending` ones from earlier
 * batches), shown with `supersede` the live memories nearest the new ones it scores (one vector
 * search each) so that it names those they update. A failed importance call leaves provisional
 * scores of 1 marked pending; a failed embedding call throws, so nothing is half-written.
 */
export async function prepareMemories(
  deps: Pick<Deps, "model" | "embedder" | "ids">,
  agent: Agent,
  batch: NewMemories,
): Promise<PreparedMemories> {
  const { items, pending = [] } = batch;
  const scope = { worldId: agent.worldId as MemoryRecord["worldId"], agentId: agent.id };
  const attribution = { ...scope, agentName: agent.name };
  const unscored = items.map((m, i) => ({ m, i })).filter(({ m }) => m.importance === undefined);
  const embedded = await embedNewMemories(scope, items.map((m) => m.description), deps);
  const earlier = batch.supersede && unscored.length > 0
    ? await earlierMemories(
      batch.supersede,
      scope,
      // What the agent said itself tells it nothing new: only what it saw or was told is looked up.
      unscored.filter(({ m }) => m.provenance !== "self" && !isIdle(m.description))
        .map(({ m }) => embedded.vectorOf.get(m.description)!),
    )
    : [];
  const texts = [...unscored.map(({ m }) => m.description), ...pending.map((p) => p.description)];
  const scoring = await scoreImportance(deps, attribution, {
    texts,
    earlier: earlier.map((m) => m.description),
  });
  const importance = items.map((m) => m.importance ?? null);
  unscored.forEach(({ i }, j) => (importance[i] = scoring.scores[j]));
  const lateScores = scoring.scores.slice(unscored.length);
  const valence = items.map((m) => m.valence ?? null);
  unscored.forEach(({ i }, j) => (valence[i] = scoring.valence?.[j] ?? null));

  const records: MemoryRecord[] = items.map((m, i) => {
    const score = importance[i];
    const record: MemoryRecord = {
      id: MemoryId.parse(m.id ?? deps.ids.next("m")),
      ...scope,
      kind: m.kind,
      description: m.description,
      createdAt: m.at,
      lastAccessedAt: m.at,
      importance: score ?? 1,
      provenance: m.provenance,
    };
    if (score === null) record.importancePending = true;
    if (m.location !== undefined) record.location = m.location;
    if (m.eventId !== undefined) record.eventId = m.eventId;
    if (m.evidence !== undefined) record.evidence = m.evidence;
    if (m.depth !== undefined) record.depth = m.depth;
    if (m.keyId !== undefined) record.keyId = m.keyId;
    return record;
  });
  const filled = pending
    .map((p, j) => ({ id: p.id, importance: lateScores[j] }))
    .filter((f): f is { id: MemoryId; importance: number } => f.importance !== null);
  return {
    records,
    vectors: records.map((r) => ({ id: r.id, vector: embedded.vectorOf.get(r.description)! })),
    usage: addUsage(scoring.usage, embedded.usage),
    addedImportance:
      records.filter((r) => !r.importancePending).reduce((s, r) => s + r.importance, 0) +
      filled.reduce((s, f) => s + f.importance, 0),
    stillPending: records.filter((r) => r.importancePending).map((r) => r.id),
    filled,
    filledPending: filled.map((f) => f.id),
    supersedes: supersessions(
      earlier,
      unscored.map(({ i }, j) => ({
        record: records[i],
        supersedes: scoring.supersedes?.[j] ?? 0,
      })),
    ),
    social: { agent, valence },
  };
}

/** What {@linkcode writeMemories} writes, and how (`fence`, `claims`). */
export interface WriteMemoriesOptions extends AppendOptions {
  prepared: Pick<PreparedMemories, "records" | "vectors" | "filled" | "supersedes" | "social">;
  /**
   * The world's memory budget: when the append leaves the agent over it, the memories least
   * likely to be retrieved again are archived (fenced too). @default no check
   */
  budget?: MemoryBudget;
}

/**
 * Writes prepared memories: vectors first (invisible until their records exist, and idempotent),
 * then the records in one atomic append with `options.claims` (fenced by `options.fence`, when
 * given), then the earlier memories the new ones supersede are marked (fenced too), then late
 * importance scores. On the hosted backend that is one Vector request and
 * one Redis request (`Storage.memoryWriter`). The append answers the live count, so checking
 * `options.budget` costs a read only when the agent is over it.
 */
export async function writeMemories(
  deps: Pick<Deps, "storage">,
  scope: AgentScope,
  options: WriteMemoriesOptions,
): Promise<void> {
  const { prepared, budget, ...append } = options;
  const { storage } = deps;
  if (prepared.records.length > 0) {
    const write = { memories: prepared.records, vectors: prepared.vectors };
    const live = await storage.memoryWriter.append(scope, write, append);
    const superseded = supersedeRevisions(prepared.supersedes ?? []);
    await storage.memories.revise(scope, superseded, { fence: append.fence });
    if (budget !== undefined && live > budget.budget) {
      await archiveOverBudget(deps, scope, { ...budget, fence: append.fence });
    }
    if (prepared.social) {
      await recordBonds(deps, scope, {
        ...prepared.social,
        records: prepared.records,
        fence: append.fence,
      });
    }
  }
  await Promise.all(
    prepared.filled.map((f) => storage.memories.setImportance(scope, f.id, f.importance)),
  );
}
