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

/** A memory as a load or an append first gives it to the cache. */
export interface EntryInit {
  seq: number;
  base: MemoryRecord;
  overlay: Overlay | null;
  /** The `first` of the pack that stores the record (`_record_packs.ts`); absent: a key of its own. */
  pack?: number;
}

/**
 * One memory in the cache. `record` is frozen and shared with callers. The overlay changes only
 * through {@linkcode AgentState.reveal}, which re-sorts the indexes it affects.
 */
export class Entry {
  readonly seq: number;
  /** Where the record is stored: see {@linkcode EntryInit.pack}. */
  readonly pack?: number;
  /** The memory's row in the agent's columns. */
  readonly row: number;
  readonly base: MemoryRecord;
  #overlay: Overlay | null;
  #record: MemoryRecord;

  constructor(init: EntryInit & { row: number; record: MemoryRecord }) {
    this.seq = init.seq;
    if (init.pack !== undefined) this.pack = init.pack;
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

/** Creation-ordered indexes of one set of memories: all, the live ones, those moved out. */
export interface ByStatus {
  all: SortedIndex<Entry>;
  live: SortedIndex<Entry>;
  archived: SortedIndex<Entry>;
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

/**
 * One agent's cached stream: its entries, their sorted indexes and columns, and the commit point
 * they are at. It changes only through its methods, each after the commit it follows. Memories
 * moved out of the live set (archived, merged) leave the live indexes retrieval ranks from.
 */
export class AgentState {
  #head: Head;
  #headStamp: string | null;
  readonly byId = new Map<string, Entry>();
  /** Every memory by creation time, by status. */
  readonly created: ByStatus;
  /** Each kind's memories by creation time, by status. */
  readonly kinds = new Map<string, ByStatus>();
  /** Live memories only (retrieval's heads). */
  readonly accessed: SortedIndex<Entry>;
  /** Live memories only (retrieval's heads). */
  readonly importance: SortedIndex<Entry>;
  /** Every memory as columns, for exhaustive scans (`kvMemoryScan`). */
  readonly columns = new MemoryColumns();

  constructor(head: Head, headStamp: string | null, loaded: readonly EntryInit[]) {
    this.#head = head;
    this.#headStamp = headStamp;
    // Each entry's status read once, every index's members gathered in one pass.
    const created = groups();
    const kinds = new Map<string, Groups>();
    for (const init of loaded) {
      const entry = this.#entry(init);
      this.byId.set(entry.record.id, entry);
      let kind = kinds.get(entry.record.kind);
      if (kind === undefined) kinds.set(entry.record.kind, kind = groups());
      const status = isLive(entry.record) ? "live" : "archived";
      created.all.push(entry), created[status].push(entry);
      kind.all.push(entry), kind[status].push(entry);
    }
    this.created = byStatus(created);
    for (const [kind, members] of kinds) this.kinds.set(kind, byStatus(members));
    this.accessed = new SortedIndex(byAccessed, created.live);
    this.importance = new SortedIndex(byImportance, created.live);
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

  /** Adds appended memories, in append order, once their append committed. */
  addMany(inits: readonly EntryInit[]): void {
    const into = new Map<SortedIndex<Entry>, Entry[]>();
    for (const init of inits) {
      const entry = this.#entry(init);
      this.byId.set(entry.record.id, entry);
      for (const index of this.#indexesOf(entry)) {
        const list = into.get(index);
        if (list === undefined) into.set(index, [entry]);
        else list.push(entry);
      }
    }
    for (const [index, entries] of into) index.insertMany(entries);
  }

  /**
   * Replaces an entry's overlay, moving it between the live and archived indexes when its status
   * changes and re-sorting the indexes its fields order.
   */
  reveal(entry: Entry, overlay: Overlay): void {
    const record = visible(entry.base, overlay);
    // Creation times never change: the creation-ordered indexes move only with the status.
    const moves = isLive(record) !== isLive(entry.record);
    const before = moves ? this.#indexesOf(entry) : this.#ordered(entry);
    for (const index of before) index.remove(entry);
    entry.reveal(overlay);
    this.columns.update(entry.row, entry.record);
    for (const index of moves ? this.#indexesOf(entry) : before) index.insert(entry);
  }

  /** The entry of a memory, with its row in the columns. */
  #entry(init: EntryInit): Entry {
    const record = visible(init.base, init.overlay);
    return new Entry({ ...init, record, row: this.columns.push(record) });
  }

  /** The indexes an entry is in, as its current record places it. */
  #indexesOf(entry: Entry): SortedIndex<Entry>[] {
    let kind = this.kinds.get(entry.record.kind);
    if (kind === undefined) this.kinds.set(entry.record.kind, kind = byStatus());
    if (!isLive(entry.record)) {
      return [this.created.all, this.created.archived, kind.all, kind.archived];
    }
    return [
      this.created.all,
      this.created.live,
      kind.all,
      kind.live,
      this.accessed,
      this.importance,
    ];
  }

  /** The indexes ordered by a mutable field the entry is in (live entries only). */
  #ordered(entry: Entry): SortedIndex<Entry>[] {
    return isLive(entry.record) ? [this.accessed, this.importance] : [];
  }
}

/** The members of a {@linkcode ByStatus}, unsorted. */
type Groups = { [K in keyof ByStatus]: Entry[] };

function groups(): Groups {
  return { all: [], live: [], archived: [] };
}

function byStatus({ all, live, archived }: Groups = groups()): ByStatus {
  return {
    all: new SortedIndex(byCreated, all),
    live: new SortedIndex(byCreated, live),
    archived: new SortedIndex(byCreated, archived),
  };
}
