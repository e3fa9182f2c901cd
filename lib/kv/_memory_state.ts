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

/** A memory as a load or an append first gives it to the cache. */
export interface EntryInit {
  seq: number;
  base: MemoryRecord;
  overlay: Overlay | null;
}

/**
 * One memory in the cache. `record` is frozen and shared with callers. The overlay changes only
 * through {@linkcode AgentState.reveal}, which re-sorts the indexes it affects.
 */
export class Entry {
  readonly seq: number;
  /** The memory's row in the agent's columns. */
  readonly row: number;
  readonly base: MemoryRecord;
  #overlay: Overlay | null;
  #record: MemoryRecord;

  constructor(init: EntryInit & { row: number; record: MemoryRecord }) {
    this.seq = init.seq;
    this.row = init.row;
    this.base = init.base;
    this.#overlay = init.overlay;
    this.#record = init.record;
  }

  get overlay(): Overlay | null {
    return this.#overlay;
  }

  /** The record as callers see it: the base with the overlay over it. */
  get record(): MemoryRecord {
    return this.#record;
  }

  /** Lays a new overlay over the base record (call through {@linkcode AgentState.reveal}). */
  reveal(overlay: Overlay): void {
    this.#overlay = overlay;
    this.#record = visible(this.base, overlay);
  }
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

/**
 * One agent's cached stream: its entries, their sorted indexes and columns, and the commit point
 * they are at. It changes only through its methods, each after the commit it follows.
 */
export class AgentState {
  #head: Head;
  #headStamp: string | null;
  readonly byId = new Map<string, Entry>();
  readonly created: SortedIndex<Entry>;
  readonly kinds = new Map<string, SortedIndex<Entry>>();
  readonly accessed: SortedIndex<Entry>;
  readonly importance: SortedIndex<Entry>;
  /** Every memory as columns, for exhaustive scans (`kvMemoryScan`). */
  readonly columns = new MemoryColumns();

  constructor(head: Head, headStamp: string | null, loaded: readonly EntryInit[]) {
    this.#head = head;
    this.#headStamp = headStamp;
    const entries = loaded.map((init) => this.#entry(init));
    const kinds = new Map<string, Entry[]>();
    for (const entry of entries) {
      this.byId.set(entry.record.id, entry);
      const list = kinds.get(entry.record.kind);
      if (list === undefined) kinds.set(entry.record.kind, [entry]);
      else list.push(entry);
    }
    this.created = new SortedIndex(byCreated, entries);
    for (const [kind, list] of kinds) this.kinds.set(kind, new SortedIndex(byCreated, list));
    this.accessed = new SortedIndex(byAccessed, entries);
    this.importance = new SortedIndex(byImportance, entries);
  }

  /** The commit point of the stream. */
  get head(): Head {
    return this.#head;
  }

  /** The head's versionstamp in KV (null before the first commit). */
  get headStamp(): string | null {
    return this.#headStamp;
  }

  /** Moves the head after a commit. */
  committed(head: Head, headStamp: string | null): void {
    this.#head = head;
    this.#headStamp = headStamp;
  }

  /** Adds an appended memory, once its append committed. */
  add(init: EntryInit): void {
    const entry = this.#entry(init);
    this.byId.set(entry.record.id, entry);
    this.created.insert(entry);
    let kind = this.kinds.get(entry.record.kind);
    if (kind === undefined) this.kinds.set(entry.record.kind, kind = new SortedIndex(byCreated));
    kind.insert(entry);
    this.accessed.insert(entry);
    this.importance.insert(entry);
  }

  /** Replaces an entry's overlay, re-sorting the two indexes it affects. */
  reveal(entry: Entry, overlay: Overlay): void {
    this.accessed.remove(entry);
    this.importance.remove(entry);
    entry.reveal(overlay);
    this.columns.update(entry.row, entry.record);
    this.accessed.insert(entry);
    this.importance.insert(entry);
  }

  /** The entry of a memory, with its row in the columns. */
  #entry(init: EntryInit): Entry {
    const record = visible(init.base, init.overlay);
    return new Entry({ ...init, record, row: this.columns.push(record) });
  }
}
