/**
 * @module One agent's cached memory stream in the embedded store: the entries, their sorted
 * indexes and columns, and how appends and overlay changes keep them in step (see
 * `kv_memory_store.ts` for the design).
 */
import type { AgentScope, GameTime, MemoryRecord } from "../../src/domain/mod.ts";
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

/** One agent's cached stream. */
export interface AgentState {
  head: Head;
  headStamp: string | null;
  byId: Map<string, Entry>;
  created: SortedIndex<Entry>;
  kinds: Map<string, SortedIndex<Entry>>;
  accessed: SortedIndex<Entry>;
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

export function visible(base: MemoryRecord, overlay: Overlay | null): MemoryRecord {
  if (overlay === null) return base;
  const record: MemoryRecord = {
    ...base,
    lastAccessedAt: overlay.lastAccessedAt as GameTime,
    importance: overlay.importance,
  };
  if (overlay.importancePending === undefined) delete record.importancePending;
  else record.importancePending = overlay.importancePending;
  return Object.freeze(record);
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
  return {
    head,
    headStamp,
    byId: new Map(entries.map((e) => [e.record.id, e])),
    created: new SortedIndex(byCreated, entries),
    kinds: new Map([...kinds].map(([kind, list]) => [kind, new SortedIndex(byCreated, list)])),
    accessed: new SortedIndex(byAccessed, entries),
    importance: new SortedIndex(byImportance, entries),
    columns,
  };
}

export function addEntry(state: AgentState, entry: Entry): void {
  entry.row = state.columns.push(entry.record);
  state.byId.set(entry.record.id, entry);
  state.created.insert(entry);
  let kind = state.kinds.get(entry.record.kind);
  if (kind === undefined) state.kinds.set(entry.record.kind, kind = new SortedIndex(byCreated));
  kind.insert(entry);
  state.accessed.insert(entry);
  state.importance.insert(entry);
}

/** Replaces an entry's overlay, re-sorting the two indexes it affects. */
export function setOverlay(state: AgentState, entry: Entry, overlay: Overlay): void {
  state.accessed.remove(entry);
  state.importance.remove(entry);
  entry.overlay = overlay;
  entry.record = visible(entry.base, overlay);
  state.columns.update(entry.row, entry.record);
  state.accessed.insert(entry);
  state.importance.insert(entry);
}
