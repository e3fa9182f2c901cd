/**
 * @module One agent's cached memory stream in the embedded store: the entries, their sorted
 * indexes and columns, and how appends and overlay changes keep them in step (see
 * `kv_memory_store.ts` for the design).
 */
import {
  type AgentScope,
  type GameTime,
  isLive,
  type MemoryRecord,
  UPKEEP_FIELDS,
  upkeepOf,
} from "../../src/domain/mod.ts";
import { MemoryColumns } from "./_memory_columns.ts";
import { SortedIndex, type SortKey } from "./_sorted_index.ts";

/** The commit point of an agent's stream. */
export interface Head {
  /** The last committed record seq. */
  seq: number;
  /** The last committed transaction. */
  txn: number;
}

/** The mutable fields of a record. */
export interface Overlay {
  lastAccessedAt: string;
  importance: number;
  importancePending?: boolean;
  /**
   * Every upkeep field of the record once a revision changed one (`UPKEEP_FIELDS`; those absent
   * are absent from the record); absent: the appended record's.
   */
  upkeep?: Partial<MemoryRecord>;
}

/** An overlay as stored: `next` once `txn` is committed, `prev` until then. */
export interface StoredOverlay {
  txn: number;
  next: Overlay;
  prev: Overlay | null;
}

/** One memory in the cache. `record` is frozen and shared with callers. */
export interface Entry {
  seq: number;
  /** The memory's row in the agent's columns. */
  row: number;
  base: MemoryRecord;
  overlay: Overlay | null;
  record: MemoryRecord;
}

/** Creation-ordered indexes of one set of memories: all, the live ones, those moved out. */
export interface ByStatus {
  all: SortedIndex<Entry>;
  live: SortedIndex<Entry>;
  archived: SortedIndex<Entry>;
}

/** One agent's cached stream. */
export interface AgentState {
  head: Head;
  headStamp: string | null;
  byId: Map<string, Entry>;
  /** Every memory by creation time, by status. */
  created: ByStatus;
  /** Each kind's memories by creation time, by status. */
  kinds: Map<string, ByStatus>;
  /** Live memories only (retrieval's heads). */
  accessed: SortedIndex<Entry>;
  /** Live memories only (retrieval's heads). */
  importance: SortedIndex<Entry>;
  /** Every memory as columns, for exhaustive scans (`kvMemoryScan`). */
  columns: MemoryColumns;
}

const byCreated = (e: Entry): SortKey => [e.record.createdAt, e.record.id];
const byAccessed = (e: Entry): SortKey => [e.record.lastAccessedAt, e.record.id];
const byImportance = (e: Entry): SortKey => [e.record.importance, e.record.id];

export function prefixOf(scope: AgentScope): Deno.KvKey {
  return ["mem", scope.worldId, scope.agentId];
}

export function freezeRecord(record: MemoryRecord): MemoryRecord {
  if (record.evidence !== undefined) Object.freeze(record.evidence);
  return Object.freeze(record);
}

export function overlayOf(entry: Entry): Overlay {
  if (entry.overlay !== null) return entry.overlay;
  const { lastAccessedAt, importance, importancePending } = entry.base;
  return importancePending === undefined
    ? { lastAccessedAt, importance }
    : { lastAccessedAt, importance, importancePending };
}

/** The overlay that gives an entry `record`'s mutable and upkeep fields. */
export function overlayFor(record: MemoryRecord): Overlay {
  const { lastAccessedAt, importance, importancePending } = record;
  const overlay: Overlay = { lastAccessedAt, importance, upkeep: upkeepOf(record) };
  if (importancePending !== undefined) overlay.importancePending = importancePending;
  return overlay;
}

export function visible(base: MemoryRecord, overlay: Overlay | null): MemoryRecord {
  if (overlay === null) return base;
  const record: MemoryRecord = {
    ...base,
    lastAccessedAt: overlay.lastAccessedAt as GameTime,
    importance: overlay.importance,
  };
  if (overlay.importancePending === undefined) delete record.importancePending;
  else record.importancePending = overlay.importancePending;
  if (overlay.upkeep !== undefined) {
    for (const field of UPKEEP_FIELDS) delete record[field];
    Object.assign(record, overlay.upkeep);
    if (record.evidence !== undefined) Object.freeze(record.evidence = [...record.evidence]);
  }
  return Object.freeze(record);
}

function byStatus(entries: readonly Entry[] = []): ByStatus {
  return {
    all: new SortedIndex(byCreated, entries),
    live: new SortedIndex(byCreated, entries.filter((e) => isLive(e.record))),
    archived: new SortedIndex(byCreated, entries.filter((e) => !isLive(e.record))),
  };
}

export function newState(head: Head, headStamp: string | null, entries: Entry[]): AgentState {
  const kinds = new Map<string, Entry[]>();
  const columns = new MemoryColumns();
  for (const entry of entries) {
    entry.row = columns.push(entry.record);
    const list = kinds.get(entry.record.kind);
    if (list === undefined) kinds.set(entry.record.kind, [entry]);
    else list.push(entry);
  }
  const live = entries.filter((e) => isLive(e.record));
  return {
    head,
    headStamp,
    byId: new Map(entries.map((e) => [e.record.id, e])),
    created: byStatus(entries),
    kinds: new Map([...kinds].map(([kind, list]) => [kind, byStatus(list)])),
    accessed: new SortedIndex(byAccessed, live),
    importance: new SortedIndex(byImportance, live),
    columns,
  };
}

/** The indexes an entry is in, as its current record places it. */
function indexesOf(state: AgentState, entry: Entry): SortedIndex<Entry>[] {
  let kind = state.kinds.get(entry.record.kind);
  if (kind === undefined) state.kinds.set(entry.record.kind, kind = byStatus());
  if (!isLive(entry.record)) {
    return [state.created.all, state.created.archived, kind.all, kind.archived];
  }
  return [
    state.created.all,
    state.created.live,
    kind.all,
    kind.live,
    state.accessed,
    state.importance,
  ];
}

export function addEntry(state: AgentState, entry: Entry): void {
  entry.row = state.columns.push(entry.record);
  state.byId.set(entry.record.id, entry);
  for (const index of indexesOf(state, entry)) index.insert(entry);
}

/**
 * Replaces an entry's overlay, moving it between the live and archived indexes when its status
 * changes and re-sorting the indexes its fields order.
 */
export function setOverlay(state: AgentState, entry: Entry, overlay: Overlay): void {
  const record = visible(entry.base, overlay);
  // Creation times never change: the creation-ordered indexes move only with the status.
  const moves = isLive(record) !== isLive(entry.record);
  const before = moves ? indexesOf(state, entry) : ordered(state, entry);
  for (const index of before) index.remove(entry);
  entry.overlay = overlay;
  entry.record = record;
  state.columns.update(entry.row, entry.record);
  for (const index of moves ? indexesOf(state, entry) : before) index.insert(entry);
}

/** The indexes ordered by a mutable field the entry is in (live entries only). */
function ordered(state: AgentState, entry: Entry): SortedIndex<Entry>[] {
  return isLive(entry.record) ? [state.accessed, state.importance] : [];
}
