/**
 * @module The embedded MemoryStore: each agent's memory stream in Deno KV, served from an in-process cache.
 *
 * ## Layout, per agent (`P = ["mem", worldId, agentId]`)
 * - `[...P, "head"]` → `{ seq, txn }`: the commit point. Small, written last by every write.
 * - `[...P, "rec", seq, part]` → the record's JSON bytes as appended (immutable), split into
 *   parts of ≤ 60 KB so any description fits KV's 64 KiB value limit. `seq` counts appends.
 * - `[...P, "ovl", seq]` → `{ txn, next, prev }`: the mutable fields (`lastAccessedAt`,
 *   `importance`, `importancePending`) once `touch()` or `setImportance()` changed them.
 *
 * ## Why all-or-nothing holds beyond one atomic operation
 * A KV atomic operation carries at most 1000 mutations and ~800 KiB, so 500 memories of 2,000
 * characters (~1.2 MB) need several. Every write is therefore a small transaction: its keys are
 * written first, in as many atomic operations as needed, where no reader looks; then one final
 * atomic operation (checked against the head's versionstamp) moves the head. Records with
 * `seq > head.seq` and overlays with `txn > head.txn` are invisible: they belong to a write that
 * never committed. Loading an agent deletes such records and rolls such overlays back to `prev`,
 * so a crash or a KV failure mid-write leaves nothing visible and nothing that a later write
 * could expose. Almost every write fits one atomic operation and is a single commit.
 *
 * ## The cache, and why this backend is single-process
 * The first call for an agent loads its whole stream into memory (records, plus sorted indexes
 * by creation, kind, last access and importance, plus columns of every memory in append order
 * for `KvStorage.scanMemories`); reads are then served from memory and every write updates KV
 * first, the cache after. The KV file stays the source of truth: a restart reloads it. Writes
 * per agent are serialised by an in-process mutex, so one process must own the file; the head
 * check makes a second writer fail with `conflict` instead of corrupting it. Loaded agents share
 * one {@linkcode CacheBudget} with the vector slabs and are dropped least recently used when it
 * is exceeded; the next use reloads them from KV.
 */
import { ConflictError, SimulacraError } from "../../src/errors.ts";
import type { AgentScope, MemoryId } from "../../src/ids.ts";
import type { MemoryKind, MemoryRecord } from "../../src/ports/memory_record.ts";
import type {
  AppendOptions,
  IndexLeaders,
  ListMemoriesOptions,
  MemoryCandidates,
  MemoryIndex,
  MemoryPage,
  MemoryStore,
} from "../../src/ports/memory_store.ts";
import type { Lease } from "../../src/ports/lock.ts";
import { claimTaken } from "../../src/ports/unit_of_work_store.ts";
import { type BlobHead, readBlob } from "./_kv_blob.ts";
import * as idem from "./kv_idempotency_store.ts";
import { gameMinutes, type GameTime } from "../../src/time/game_time.ts";
import { CacheBudget } from "./_cache_budget.ts";
import { KeyedMutex } from "./_keyed_mutex.ts";
import { MemoryColumns } from "./_memory_columns.ts";
import {
  addWrites,
  assertKeySize,
  decodeJson,
  deleteKey,
  deletePrefixes,
  encodeJson,
  guard,
  joinBytes,
  type KvWrite,
  listAll,
  planBatches,
  setBytes,
  setValue,
  splitBytes,
} from "./_kv_support.ts";
import { SortedIndex, type SortKey } from "./_sorted_index.ts";
import { leaseCheck } from "./kv_lock.ts";

/** Configuration of {@linkcode KvMemoryStore}. */
export interface KvMemoryStoreOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
  /** The cache budget, shared with the vector index. @default 256 MiB of its own */
  budget?: CacheBudget;
}

/** The commit point of an agent's stream. */
interface Head {
  /** The last committed record seq. */
  seq: number;
  /** The last committed transaction. */
  txn: number;
}

/** The mutable fields of a record. */
interface Overlay {
  lastAccessedAt: string;
  importance: number;
  importancePending?: boolean;
}

/** An overlay as stored: `next` once `txn` is committed, `prev` until then. */
interface StoredOverlay {
  txn: number;
  next: Overlay;
  prev: Overlay | null;
}

/** One memory in the cache. `record` is frozen and shared with callers. */
interface Entry {
  seq: number;
  /** The memory's row in the agent's columns. */
  row: number;
  base: MemoryRecord;
  overlay: Overlay | null;
  record: MemoryRecord;
}

/** One agent's cached stream. */
interface AgentState {
  head: Head;
  headStamp: string | null;
  byId: Map<string, Entry>;
  created: SortedIndex<Entry>;
  kinds: Map<string, SortedIndex<Entry>>;
  accessed: SortedIndex<Entry>;
  importance: SortedIndex<Entry>;
  /** Every memory as columns, for exhaustive scans (`KvStorage.scanMemories`). */
  columns: MemoryColumns;
}

const byCreated = (e: Entry): SortKey => [e.record.createdAt, e.record.id];
const byAccessed = (e: Entry): SortKey => [e.record.lastAccessedAt, e.record.id];
const byImportance = (e: Entry): SortKey => [e.record.importance, e.record.id];

/**
 * Estimated bytes one cached memory takes (record, four sorted indexes, columns), for the cache
 * budget; measured with `tests/bench/embedded_cache_rss.ts`.
 */
const MEMORY_CACHE_BYTES = 1_200;

/** Most claims the final atomic operation of an append checks (KV allows 100 checks). */
const CLAIMS_IN_COMMIT = 64;

/** Room the final atomic operation keeps for the head write and its check, and for claims. */
const HEAD_RESERVE = { mutations: 1 + CLAIMS_IN_COMMIT, bytes: 200 + CLAIMS_IN_COMMIT * 300 };

function prefixOf(scope: AgentScope): Deno.KvKey {
  return ["mem", scope.worldId, scope.agentId];
}

function freezeRecord(record: MemoryRecord): MemoryRecord {
  if (record.evidence !== undefined) Object.freeze(record.evidence);
  return Object.freeze(record);
}

function overlayOf(entry: Entry): Overlay {
  if (entry.overlay !== null) return entry.overlay;
  const { lastAccessedAt, importance, importancePending } = entry.base;
  return importancePending === undefined
    ? { lastAccessedAt, importance }
    : { lastAccessedAt, importance, importancePending };
}

function visible(base: MemoryRecord, overlay: Overlay | null): MemoryRecord {
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

function encodeCursor(entry: Entry): string {
  return btoa(JSON.stringify([entry.record.createdAt, entry.record.id]))
    .replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

function decodeCursor(cursor: string): SortKey {
  try {
    const parsed = JSON.parse(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
    if (
      Array.isArray(parsed) && parsed.length === 2 && typeof parsed[0] === "string" &&
      typeof parsed[1] === "string"
    ) {
      return [parsed[0], parsed[1]];
    }
  } catch {
    // Reported below.
  }
  throw new SimulacraError(
    "invalid_request",
    "Cannot read the page cursor: pass the `next` value of the previous page unchanged",
  );
}

function newState(head: Head, headStamp: string | null, entries: Entry[]): AgentState {
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

function addEntry(state: AgentState, entry: Entry): void {
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
function setOverlay(state: AgentState, entry: Entry, overlay: Overlay): void {
  state.accessed.remove(entry);
  state.importance.remove(entry);
  entry.overlay = overlay;
  entry.record = visible(entry.base, overlay);
  state.columns.update(entry.row, entry.record);
  state.accessed.insert(entry);
  state.importance.insert(entry);
}

/** A memory stream per agent in Deno KV, cached in process. See the module doc for the design. */
export class KvMemoryStore implements MemoryStore {
  readonly #kv: Deno.Kv;
  readonly #agents = new Map<string, AgentState>();
  readonly #mutex = new KeyedMutex();
  readonly #budget: CacheBudget;

  constructor(options: KvMemoryStoreOptions) {
    this.#kv = options.kv;
    this.#budget = options.budget ?? new CacheBudget();
  }

  /**
   * Appends memories, all or none (any batch size; see the module doc).
   *
   * @throws {SimulacraError} `invalid_request` when a record's `worldId`/`agentId` is not the scope's.
   * @throws {ConflictError} `conflict` when an id exists in the scope or repeats in the batch.
   * @throws {LeaseLostError} `conflict` when `options.fence` is no longer held; nothing visible.
   * @throws {SimulacraError} `store_unavailable` when KV fails; nothing is then visible.
   */
  async append(
    scope: AgentScope,
    memories: readonly MemoryRecord[],
    options: AppendOptions = {},
  ): Promise<void> {
    if (memories.length === 0) return;
    const claims = options.claims ?? [];
    const ids = new Set<string>();
    for (const memory of memories) {
      if (memory.worldId !== scope.worldId || memory.agentId !== scope.agentId) {
        throw new SimulacraError(
          "invalid_request",
          "Cannot append a memory to another agent's stream: set its worldId and agentId to the scope's",
        );
      }
      if (ids.has(memory.id)) {
        throw new ConflictError(`Cannot append memory "${memory.id}" twice in one batch`);
      }
      ids.add(memory.id);
      assertKeySize([...prefixOf(scope), "rec", 0, 0, memory.id], "world, agent or memory id");
    }
    await this.#writing(scope, "append memories", async (state) => {
      for (const memory of memories) {
        if (state.byId.has(memory.id)) {
          throw new ConflictError(
            `Cannot append memory "${memory.id}": the agent already has a memory with this id`,
          );
        }
      }
      const writes: KvWrite[] = [];
      const entries: Entry[] = [];
      memories.forEach((memory, i) => {
        const seq = state.head.seq + i + 1;
        const bytes = encodeJson(memory);
        splitBytes(bytes).forEach((part, p) => {
          writes.push(setBytes([...prefixOf(scope), "rec", seq, p], part));
        });
        // The cache holds what a reload would read: the JSON form, frozen.
        const base = freezeRecord(decodeJson<MemoryRecord>(bytes));
        entries.push({ seq, row: -1, base, overlay: null, record: base });
      });
      const head = { seq: state.head.seq + memories.length, txn: state.head.txn + 1 };
      // KV checks at most 100 keys per atomic operation: many claims are stored ahead (a crash
      // then leaves claims of ids never stored, which a retry with the same ids goes through).
      const inFinal = claims.length <= CLAIMS_IN_COMMIT;
      if (!inFinal) await this.#claimAhead(claims, options.fence);
      await this.#commit(
        scope,
        state,
        writes,
        head,
        options.fence,
        inFinal && claims.length > 0 ? () => this.#claiming(claims) : undefined,
      );
      for (const entry of entries) addEntry(state, entry);
    });
  }

  /** The memory, or null. Records are frozen: copy one to change it. */
  async get(scope: AgentScope, id: MemoryId): Promise<MemoryRecord | null> {
    const state = await this.#state(scope);
    return state.byId.get(id)?.record ?? null;
  }

  /** The memories of these ids, in order; null where one does not exist. */
  async getMany(scope: AgentScope, ids: readonly MemoryId[]): Promise<(MemoryRecord | null)[]> {
    const state = await this.#state(scope);
    return ids.map((id) => state.byId.get(id)?.record ?? null);
  }

  /**
   * The agent's memories as live columns, in append order (loading the agent on first use): for
   * `KvStorage.scanMemories`, which reads them synchronously. Writes change them in place and
   * only append rows; a reload (after a failed write) builds new columns.
   *
   * @throws {SimulacraError} `store_unavailable` when loading from KV fails.
   */
  async columns(scope: AgentScope): Promise<MemoryColumns> {
    return (await this.#state(scope)).columns;
  }

  /** The heads as {@linkcode leaders} reads them, and the rank fields of the candidates. */
  async candidates(
    scope: AgentScope,
    ids: readonly MemoryId[],
    options: { heads: number; kinds?: readonly MemoryKind[] },
  ): Promise<MemoryCandidates> {
    const recent = await this.leaders(scope, "lastAccessed", options.heads);
    const important = await this.leaders(scope, "importance", options.heads);
    const union = new Set([...ids, ...recent.ids, ...important.ids]);
    const records = await this.getMany(scope, [...union]);
    const fields = records.flatMap((r) =>
      r === null || (options.kinds !== undefined && !options.kinds.includes(r.kind)) ? [] : [{
        id: r.id,
        createdAt: r.createdAt,
        accessedMinutes: gameMinutes(r.lastAccessedAt),
        importance: r.importance,
      }]
    );
    return { recent, important, fields };
  }

  async all(scope: AgentScope): Promise<MemoryRecord[]> {
    const state = await this.#state(scope);
    return state.created.slice().map((e) => e.record);
  }

  /**
   * A page by creation time then id. The cursor is the last returned (time, id), so a page
   * starts strictly after it whatever was appended since.
   *
   * @throws {SimulacraError} `invalid_request` on a limit outside 1-1000 or a malformed cursor.
   */
  async list(scope: AgentScope, options: ListMemoriesOptions): Promise<MemoryPage> {
    const { limit, kind, cursor } = options;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new SimulacraError(
        "invalid_request",
        `Cannot list ${limit} memories per page: use 1-1000`,
      );
    }
    const after = cursor === undefined ? null : decodeCursor(cursor);
    const state = await this.#state(scope);
    const index = kind === undefined ? state.created : state.kinds.get(kind);
    if (index === undefined) return { memories: [], next: null };
    // The first entry created at or after `since` (ids are never empty, so "" sorts first).
    const first = options.since === undefined ? 0 : index.lowerBound([options.since, ""]);
    let window: Entry[];
    if ((options.order ?? "desc") === "asc") {
      const start = Math.max(first, after === null ? 0 : index.upperBound(after));
      window = index.slice(start, start + limit + 1);
    } else {
      const end = after === null ? index.size : index.lowerBound(after);
      window = index.slice(Math.max(first, end - limit - 1), Math.max(first, end)).reverse();
    }
    const page = window.slice(0, limit);
    return {
      memories: page.map((e) => e.record),
      next: window.length > limit ? encodeCursor(page[page.length - 1]) : null,
    };
  }

  /** How many memories the agent has. */
  async count(scope: AgentScope): Promise<number> {
    return (await this.#state(scope)).byId.size;
  }

  /** Sets `lastAccessedAt = at` on existing memories; unknown ids are ignored. Idempotent. */
  async touch(scope: AgentScope, ids: readonly MemoryId[], at: GameTime): Promise<void> {
    if (ids.length === 0) return;
    await this.#writing(scope, "touch memories", async (state) => {
      const targets = [...new Set(ids)]
        .map((id) => state.byId.get(id))
        .filter((e): e is Entry => e !== undefined && e.record.lastAccessedAt !== at);
      if (targets.length === 0) return;
      await this.#update(scope, state, targets, (e) => ({ ...overlayOf(e), lastAccessedAt: at }));
    });
  }

  /**
   * Sets a memory's importance and clears `importancePending`; false when the id does not exist.
   *
   * @throws {SimulacraError} `invalid_request` when importance is not an integer 1-10.
   */
  async setImportance(scope: AgentScope, id: MemoryId, importance: number): Promise<boolean> {
    if (!Number.isInteger(importance) || importance < 1 || importance > 10) {
      throw new SimulacraError(
        "invalid_request",
        `Cannot set importance ${importance}: use an integer from 1 to 10`,
      );
    }
    return await this.#writing(scope, "set a memory's importance", async (state) => {
      const entry = state.byId.get(id);
      if (entry === undefined) return false;
      const current = overlayOf(entry);
      if (current.importance === importance && current.importancePending === undefined) return true;
      const { lastAccessedAt } = current;
      await this.#update(scope, state, [entry], () => ({ lastAccessedAt, importance }));
      return true;
    });
  }

  /** The ids of the top `n` by an index, highest first; ties by id, highest first. */
  async top(scope: AgentScope, index: MemoryIndex, n: number): Promise<MemoryId[]> {
    return (await this.leaders(scope, index, n)).ids;
  }

  /** The top `n` ids of an index with their scores, and the index's lowest score. */
  async leaders(scope: AgentScope, index: MemoryIndex, n: number): Promise<IndexLeaders> {
    const state = await this.#state(scope);
    const sorted = index === "created"
      ? state.created
      : index === "lastAccessed"
      ? state.accessed
      : state.importance;
    const score = (e: Entry) =>
      index === "importance"
        ? e.record.importance
        : gameMinutes(index === "created" ? e.record.createdAt : e.record.lastAccessedAt);
    const count = Math.max(0, Math.min(Math.floor(n), sorted.size));
    const top = count > 0 ? sorted.slice(sorted.size - count).reverse() : [];
    return {
      ids: top.map((e) => e.record.id),
      scores: top.map(score),
      lowest: sorted.size > 0 ? score(sorted.at(0)) : null,
    };
  }

  /**
   * Removes memories in one transaction (their record parts and overlays, then the head moves),
   * then drops the agent's cache so the next call reloads it without them: the columns of a
   * reloaded stream are a new array, so scans re-map their vectors.
   */
  async remove(scope: AgentScope, ids: readonly MemoryId[]): Promise<number> {
    if (ids.length === 0) return 0;
    return await this.#writing(scope, "remove memories", async (state) => {
      const doomed = [...new Set(ids)].flatMap((id) => state.byId.get(id) ?? []);
      if (doomed.length === 0) return 0;
      const prefix = prefixOf(scope);
      const writes: KvWrite[] = [];
      for (const entry of doomed) {
        const parts = await listAll(this.#kv, { prefix: [...prefix, "rec", entry.seq] });
        for (const part of parts) writes.push(deleteKey(part.key));
        writes.push(deleteKey([...prefix, "ovl", entry.seq]));
      }
      try {
        await this.#commit(scope, state, writes, { seq: state.head.seq, txn: state.head.txn + 1 });
      } finally {
        this.#agents.delete(JSON.stringify(prefix));
      }
      return doomed.length;
    });
  }

  /**
   * Removes every memory of the agent: the head goes first, in one atomic operation, so the
   * whole stream disappears at once; a crash before the records follow leaves only records
   * that the next load cleans up as uncommitted.
   */
  async clear(scope: AgentScope): Promise<void> {
    const prefix = prefixOf(scope);
    const key = JSON.stringify(prefix);
    await this.#mutex.run(key, () =>
      guard("clear memories", async () => {
        this.#agents.delete(key);
        await this.#kv.delete([...prefix, "head"]);
        await deletePrefixes(this.#kv, [prefix]);
      }));
  }

  /** Stores claims in atomic operations of their own (see `append`), fence checked first. */
  async #claimAhead(
    claims: NonNullable<AppendOptions["claims"]>,
    fence: Lease | undefined,
  ): Promise<void> {
    if (fence) await leaseCheck(this.#kv, fence);
    for (let i = 0; i < claims.length; i += CLAIMS_IN_COMMIT) {
      const chunk = claims.slice(i, i + CLAIMS_IN_COMMIT);
      for (;;) {
        const op = this.#kv.atomic();
        (await this.#claiming(chunk))(op);
        if ((await op.commit()).ok) break;
      }
    }
  }

  /**
   * What the final atomic operation of an append checks and writes for its claims: a key that
   * holds nothing is set (checked still empty), one that holds the same value is checked
   * unchanged. @throws {ConflictError} when a key holds another value.
   */
  async #claiming(
    claims: NonNullable<AppendOptions["claims"]>,
  ): Promise<(op: Deno.AtomicOperation) => void> {
    const steps = await Promise.all(claims.map(async (claim) => {
      const key = idem.headKey(claim.scope, claim.key);
      const bytes = encodeJson(claim.value ?? null);
      const entry = await this.#kv.get<BlobHead>(key);
      if (entry.value === null) {
        const write = { scope: claim.scope, key: claim.key, gen: 1, bytes, previous: null };
        return (op: Deno.AtomicOperation) =>
          void idem.addValueWrites(op.check({ key, versionstamp: null }), write);
      }
      const stored = await readBlob(this.#kv, idem.partPrefix(claim.scope, claim.key), entry.value);
      if (stored === null || new TextDecoder().decode(stored) !== new TextDecoder().decode(bytes)) {
        throw claimTaken(claim);
      }
      return (op: Deno.AtomicOperation) => void op.check(entry);
    }));
    return (op) => steps.forEach((step) => step(op));
  }

  /** Writes new overlays for entries in one transaction, then applies them to the cache. */
  async #update(
    scope: AgentScope,
    state: AgentState,
    entries: readonly Entry[],
    next: (entry: Entry) => Overlay,
  ): Promise<void> {
    const txn = state.head.txn + 1;
    const overlays = entries.map(next);
    const writes = entries.map((entry, i) =>
      setValue(
        [...prefixOf(scope), "ovl", entry.seq],
        {
          txn,
          next: overlays[i],
          prev: entry.overlay,
        } satisfies StoredOverlay,
      )
    );
    await this.#commit(scope, state, writes, { seq: state.head.seq, txn });
    entries.forEach((entry, i) => setOverlay(state, entry, overlays[i]));
  }

  /**
   * Writes `writes` in as many atomic operations as KV's limits need, each checked against the
   * head's versionstamp, the last one also setting the head (and checking `fence`, when given:
   * earlier batches are invisible until then). On any failure the agent's cache is dropped, so
   * the next call reloads (and cleans up) from KV.
   */
  async #commit(
    scope: AgentScope,
    state: AgentState,
    writes: KvWrite[],
    head: Head,
    fence?: Lease,
    final?: () => Promise<(op: Deno.AtomicOperation) => void>,
  ): Promise<void> {
    const headKey = [...prefixOf(scope), "head"];
    const batches = planBatches(writes, HEAD_RESERVE);
    try {
      for (let i = 0; i < batches.length; i++) {
        const last = i === batches.length - 1;
        const result = await this.#commitBatch(
          state,
          headKey,
          batches[i],
          last ? head : null,
          fence,
          last ? final : undefined,
        );
        if (!result.ok) throw changedElsewhere();
        if (last) {
          state.head = head;
          state.headStamp = result.versionstamp;
        }
      }
    } catch (error) {
      const key = JSON.stringify(prefixOf(scope));
      this.#agents.delete(key);
      this.#budget.forget(`mem:${key}`);
      throw error;
    }
  }

  /**
   * One atomic operation checked against the head; the final one sets `head` and checks the
   * fence. A failed check caused only by the fence's holder renewing it is retried.
   */
  async #commitBatch(
    state: AgentState,
    headKey: Deno.KvKey,
    batch: KvWrite[],
    head: Head | null,
    fence: Lease | undefined,
    final: (() => Promise<(op: Deno.AtomicOperation) => void>) | undefined,
  ): Promise<Deno.KvCommitResult | Deno.KvCommitError> {
    for (;;) {
      const fenceCheck = head !== null && fence ? await leaseCheck(this.#kv, fence) : null;
      const finalOps = await final?.();
      const op = this.#kv.atomic().check({ key: headKey, versionstamp: state.headStamp });
      addWrites(op, batch);
      if (head !== null) op.set(headKey, head);
      if (fenceCheck !== null) op.check(fenceCheck);
      finalOps?.(op);
      const result = await op.commit();
      if (result.ok || (fenceCheck === null && finalOps === undefined)) return result;
      const current = await this.#kv.get(headKey);
      if (current.versionstamp !== state.headStamp) return result;
    }
  }

  /** Runs a write under the agent's mutex with its state loaded, translating KV errors. */
  #writing<T>(
    scope: AgentScope,
    action: string,
    fn: (state: AgentState) => Promise<T>,
  ): Promise<T> {
    const key = JSON.stringify(prefixOf(scope));
    return this.#mutex.run(key, () => guard(action, async () => fn(await this.#load(scope))));
  }

  /** The agent's cached state, loading it on first use. */
  async #state(scope: AgentScope): Promise<AgentState> {
    const key = JSON.stringify(prefixOf(scope));
    const cached = this.#agents.get(key);
    if (cached !== undefined) return this.#used(key, cached);
    return await this.#mutex.run(key, () => guard("read memories", () => this.#load(scope)));
  }

  /** Marks an agent's state as just used in the cache budget (which may evict others). */
  #used(key: string, state: AgentState): AgentState {
    this.#budget.use(`mem:${key}`, state.byId.size * MEMORY_CACHE_BYTES, () => {
      if (this.#agents.get(key) === state) this.#agents.delete(key);
    });
    return state;
  }

  /** Loads an agent from KV (call under its mutex), dropping what uncommitted writes left. */
  async #load(scope: AgentScope): Promise<AgentState> {
    const prefix = prefixOf(scope);
    const key = JSON.stringify(prefix);
    const cached = this.#agents.get(key);
    if (cached !== undefined) return this.#used(key, cached);

    const headKey = [...prefix, "head"];
    const headEntry = await this.#kv.get<Head>(headKey);
    const head = headEntry.value ?? { seq: 0, txn: 0 };
    const records = await listAll<Uint8Array>(this.#kv, { prefix: [...prefix, "rec"] });
    const stored = await listAll<StoredOverlay>(this.#kv, { prefix: [...prefix, "ovl"] });

    const cleanup: KvWrite[] = [];
    const overlays = new Map<number, Overlay>();
    for (const { key: ovlKey, value } of stored) {
      const seq = ovlKey[4] as number;
      if (seq > head.seq) {
        cleanup.push(deleteKey(ovlKey));
      } else if (value.txn <= head.txn) {
        overlays.set(seq, value.next);
      } else if (value.prev === null) {
        cleanup.push(deleteKey(ovlKey));
      } else {
        overlays.set(seq, value.prev);
        cleanup.push(setValue(ovlKey, { txn: head.txn, next: value.prev, prev: null }));
      }
    }

    const entries: Entry[] = [];
    let parts: Uint8Array[] = [];
    for (let i = 0; i < records.length; i++) {
      const { key: recKey, value } = records[i];
      const seq = recKey[4] as number;
      if (seq > head.seq) {
        cleanup.push(deleteKey(recKey));
        continue;
      }
      parts.push(value);
      if (i + 1 < records.length && records[i + 1].key[4] === seq) continue;
      const base = freezeRecord(decodeJson<MemoryRecord>(joinBytes(parts)));
      parts = [];
      const overlay = overlays.get(seq) ?? null;
      entries.push({ seq, row: -1, base, overlay, record: visible(base, overlay) });
    }

    for (const batch of planBatches(cleanup)) {
      if (batch.length === 0) continue;
      const op = this.#kv.atomic().check({ key: headKey, versionstamp: headEntry.versionstamp });
      if (!(await addWrites(op, batch).commit()).ok) throw changedElsewhere();
    }
    const state = newState(head, headEntry.versionstamp, entries);
    this.#agents.set(key, state);
    return this.#used(key, state);
  }
}

function changedElsewhere(): ConflictError {
  return new ConflictError(
    "Cannot write the memory stream: it changed outside this process; the embedded store allows one process per file",
  );
}
