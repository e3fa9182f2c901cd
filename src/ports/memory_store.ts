/** @module Port: the memory stream's records and its per-agent sorted indexes. */
import type {
  AgentScope,
  GameTime,
  MemoryId,
  MemoryKind,
  MemoryRecord,
  MemoryRevision,
  MemoryStatus,
} from "../domain/mod.ts";
import type { FencedWrite } from "./lock.ts";
import type { ClaimKey } from "./unit_of_work_store.ts";

/** Options for {@linkcode MemoryStore.append}. */
export interface AppendOptions extends FencedWrite {
  /**
   * Idempotency keys (as `IdempotencyStore` keeps them) stored with the memories in the same
   * atomic step, e.g. each observation's event id → its memory id, so a memory is never stored
   * without its claim nor a claim taken for a memory never stored. A key may already hold the
   * same value (left as it is); one holding another value makes the append write nothing.
   */
  claims?: readonly (ClaimKey & { value: unknown })[];
}

/** Options for {@linkcode MemoryStore.list}. */
export interface ListMemoriesOptions {
  /** Only memories of this kind. @default all kinds */
  kind?: MemoryKind;
  /** Page size, 1-1000. */
  limit: number;
  /** The `next` of the previous page; absent for the first page. */
  cursor?: string;
  /** By creation game time (ties by id). @default "desc" (newest first) */
  order?: "asc" | "desc";
  /**
   * Only memories created at or after this game time (newest first, the last page ends at the
   * first older one), e.g. the recent ones a perceive compares new observations with.
   */
  since?: GameTime;
  /**
   * Which memories: the live set (neither archived nor merged; superseded ones are live), those
   * moved out of it, or all. @default "live"
   */
  status?: MemoryStatus;
}

/**
 * Memories outside the default of a ranking read: those moved out of the live set (archived or
 * merged), and superseded ones. @default neither
 */
export interface MemoryInclusion {
  archived?: boolean;
  superseded?: boolean;
}

/** One page of memories. `next` is null on the last page. */
export interface MemoryPage {
  memories: MemoryRecord[];
  next: string | null;
}

/** What retrieval scores a memory by, without the rest of its record. */
export interface MemoryRankFields {
  id: MemoryId;
  createdAt: GameTime;
  /** `gameMinutes(lastAccessedAt)`. */
  accessedMinutes: number;
  importance: number;
}

/** What {@linkcode MemoryStore.candidates} reads. */
export interface MemoryCandidates {
  /** The head of the lastAccessed index (scores in game minutes). */
  recent: IndexLeaders;
  /** The head of the importance index. */
  important: IndexLeaders;
  /**
   * The rank fields of the ids asked for, then of both heads' ids, each once: only memories that
   * exist, are live and not superseded (unless `include` says otherwise) and (with `kinds`) are
   * of one of those kinds.
   */
  fields: MemoryRankFields[];
}

/** The orders a store keeps sorted per agent, of its live memories. */
export type MemoryIndex = "lastAccessed" | "importance" | "created";

/** The head of a sorted index with its scores, and the index's lowest score. */
export interface IndexLeaders {
  /** The top ids, highest first. */
  ids: MemoryId[];
  /** Their scores: game minutes (`lastAccessed`, `created`) or importance. */
  scores: number[];
  /** The lowest score of any of the agent's live memories; null when it has none. */
  lowest: number | null;
}

/**
 * Records of each agent's memory stream. Every method takes the agent's scope first; a record
 * of one scope is never returned through another. All methods throw `store_unavailable` when
 * the backend fails; a failed call has written nothing.
 */
export interface MemoryStore {
  /**
   * Appends new memories to one agent, all or none, with `options.claims`. Each record's
   * `worldId`/`agentId` must match the scope. Throws `conflict` (and writes nothing) when an id
   * already exists in the scope, when a claim's key holds another value, or when
   * `options.fence` is given and no longer held (`LeaseLostError`). Resolves to how many live
   * memories the agent has after it (a budget check at no extra read).
   */
  append(
    scope: AgentScope,
    memories: readonly MemoryRecord[],
    options?: AppendOptions,
  ): Promise<number>;

  /** The memory with this id in the scope, or null. */
  get(scope: AgentScope, id: MemoryId): Promise<MemoryRecord | null>;

  /** The memories with these ids, in the same order; null where one does not exist. */
  getMany(scope: AgentScope, ids: readonly MemoryId[]): Promise<(MemoryRecord | null)[]>;

  /**
   * What a retrieval ranks from, in one read: the top `heads` of the live lastAccessed and
   * importance indexes (with their scores and lowest scores), and the rank fields of `ids` (the
   * vector hits) and of both heads, of the memories `include` lets in. Lets a hosted backend
   * score a thousand candidates from its sorted indexes in one request and read full records
   * only for the few it returns.
   */
  candidates(
    scope: AgentScope,
    ids: readonly MemoryId[],
    options: { heads: number; kinds?: readonly MemoryKind[]; include?: MemoryInclusion },
  ): Promise<MemoryCandidates>;

  /**
   * Every memory of the agent, live or not, in creation order. For exact scoring and rebuilding
   * caches.
   */
  all(scope: AgentScope): Promise<MemoryRecord[]>;

  /**
   * Pages through memories by creation time, optionally of one kind, of the live set unless
   * `options.status` says otherwise. Stable under appends. A page of one kind and status may
   * hold fewer than `limit` memories while `next` is not null.
   */
  list(scope: AgentScope, options: ListMemoriesOptions): Promise<MemoryPage>;

  /** How many memories the agent has in `status` (@default "live"). */
  count(scope: AgentScope, options?: { status?: MemoryStatus }): Promise<number>;

  /**
   * Applies upkeep revisions to existing memories, all or none (`revised` in the domain says
   * how each changes a record): a memory given `archivedAt` or `mergedInto` leaves the live set
   * and its indexes (it is still read by `get`, `all` and lists of `archived`), one given
   * `supersededBy` is left out of rankings unless asked for. Nothing is deleted. Ids that do
   * not exist are ignored; resolves to how many memories were revised.
   *
   * @throws `invalid_request` on an invalid revision or an id revised twice (nothing written);
   * `conflict` (`LeaseLostError`) when `options.fence` is no longer held (nothing written).
   */
  revise(
    scope: AgentScope,
    revisions: readonly MemoryRevision[],
    options?: FencedWrite,
  ): Promise<number>;

  /**
   * Sets `lastAccessedAt = at` on existing memories (live or not) and re-sorts the lastAccessed
   * index. Idempotent; ids that do not exist are ignored.
   */
  touch(scope: AgentScope, ids: readonly MemoryId[], at: GameTime): Promise<void>;

  /**
   * Sets a memory's importance (e.g. when a pending score arrives) and clears
   * `importancePending`; re-sorts the importance index. Returns false when the id does not exist.
   */
  setImportance(scope: AgentScope, id: MemoryId, importance: number): Promise<boolean>;

  /**
   * The ids of the top `n` live memories by an index, highest first (latest access, most
   * important, newest).
   */
  top(scope: AgentScope, index: MemoryIndex, n: number): Promise<MemoryId[]>;

  /**
   * Removes memories (records and every index entry), all or none; ids that do not exist are
   * ignored. Returns how many were removed.
   */
  remove(scope: AgentScope, ids: readonly MemoryId[]): Promise<number>;

  /**
   * Removes every memory of the agent and its indexes (deleting an agent, or undoing an import
   * or an agent creation that failed part-way). Vectors are the vector index's to remove.
   * Idempotent; a failed call may have removed some memories, and repeating it removes the rest.
   */
  clear(scope: AgentScope): Promise<void>;
}
