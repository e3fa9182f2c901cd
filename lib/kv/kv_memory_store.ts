/**
 * @module The embedded MemoryStore: each agent's memory stream in Deno KV, served from an in-process cache.
 *
 * ## Layout, per agent (`P = ["mem", worldId, agentId]`)
 * - `[...P, "head"]` → `{ seq, txn }`: the commit point. Small, written last by every write.
 * - `[...P, "rec", seq, part]` → the record's JSON bytes as appended (immutable), split into
 *   parts of ≤ 60 KB so any description fits KV's 64 KiB value limit. `seq` counts appends.
 * - `[...P, "rpk", first]` → many records of one bulk append (an import's batch), their seqs
 *   and JSON in one value of ≤ 60 KB: a key per record cost more than the bytes
 *   (`_record_packs.ts`). A stream can hold both layouts; streams from before packs load as they are.
 * - `[...P, "ovl", seq]` → `{ txn, next, prev }`: the mutable fields (`lastAccessedAt`,
 *   `importance`, `importancePending`, the upkeep fields) once `touch()`, `setImportance()` or
 *   `revise()` changed them.
 *
 * ## All or nothing beyond one atomic operation: see `_memory_commit.ts`.
 *
 * ## The cache, and why this backend is single-process
 * The first call for an agent loads its whole stream into memory (records, plus sorted indexes
 * by creation, kind, last access and importance, plus columns of every memory in append order
 * for `kvMemoryScan`); reads are then served from memory and every write updates KV
 * first, the cache after. The KV file stays the source of truth: a restart reloads it. Writes
 * per agent are serialised by an in-process mutex, so one process must own the file; the head
 * check makes a second writer fail with `conflict` instead of corrupting it. Loaded agents share
 * one {@linkcode CacheBudget} with the vector slabs and are dropped least recently used when it
 * is exceeded; the next use reloads them from KV.
 */
import {
  type AgentScope,
  checkRevisions,
  type GameTime,
  type MemoryId,
  type MemoryKind,
  type MemoryRecord,
  type MemoryRevision,
  type MemoryStatus,
} from "../../src/domain/mod.ts";
import type {
  AppendOptions,
  FencedWrite,
  IndexLeaders,
  ListMemoriesOptions,
  MemoryCandidates,
  MemoryInclusion,
  MemoryIndex,
  MemoryPage,
  MemoryStore,
} from "../../src/ports/mod.ts";
import { AgentCache } from "./_agent_cache.ts";
import { CacheBudget } from "./_cache_budget.ts";
import type { MemoryColumns } from "./_memory_columns.ts";
import { deletePrefixes } from "./_kv_support.ts";
import { commitWrites, loadAgent, type Transaction } from "./_memory_commit.ts";
import { candidatesOf, leadersOf, pageOf, pageStart } from "./_memory_reads.ts";
import {
  appendTransaction,
  checkBatch,
  type OverlayChange,
  overlayTransaction,
  removalTransaction,
  revisionChanges,
} from "./_memory_writes.ts";
import { type AgentState, type Entry, overlayOf, prefixOf } from "./_memory_state.ts";

/** Configuration of {@linkcode KvMemoryStore}. */
export interface KvMemoryStoreOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
  /** The cache budget, shared with the vector index. @default 256 MiB of its own */
  budget?: CacheBudget;
}

/** Bytes one cached memory takes (record, indexes, columns); see tests/bench/embedded_cache_rss.ts. */
const MEMORY_CACHE_BYTES = 1_200;

/** A memory stream per agent in Deno KV, cached in process. See the module doc for the design. */
export class KvMemoryStore implements MemoryStore {
  readonly #kv: Deno.Kv;
  readonly #agents: AgentCache<AgentState>;
  readonly #load = (scope: AgentScope) => loadAgent(this.#kv, scope);

  constructor(options: KvMemoryStoreOptions) {
    this.#kv = options.kv;
    this.#agents = new AgentCache({
      budget: options.budget ?? new CacheBudget(),
      tag: "mem",
      bytesOf: (state) => state.byId.size * MEMORY_CACHE_BYTES,
    });
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
  ): Promise<number> {
    if (memories.length === 0) return await this.count(scope);
    checkBatch(scope, memories);
    return await this.#writing(scope, "append memories", async (state) => {
      const { txn, entries } = await appendTransaction(this.#kv, scope, {
        state,
        memories,
        options,
      });
      await this.#commit(scope, state, txn);
      state.addMany(entries);
      return state.created.live.size;
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
   * `kvMemoryScan`, which reads them synchronously. Writes change them in place and
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
    options: { heads: number; kinds?: readonly MemoryKind[]; include?: MemoryInclusion },
  ): Promise<MemoryCandidates> {
    return candidatesOf(await this.#state(scope), ids, options);
  }

  async all(scope: AgentScope): Promise<MemoryRecord[]> {
    const state = await this.#state(scope);
    return state.created.all.slice().map((e) => e.record);
  }

  /**
   * A page by creation time then id. The cursor is the last returned (time, id), so a page
   * starts strictly after it whatever was appended since.
   *
   * @throws {SimulacraError} `invalid_request` on a limit outside 1-1000 or a malformed cursor.
   */
  async list(scope: AgentScope, options: ListMemoriesOptions): Promise<MemoryPage> {
    const after = pageStart(options);
    return pageOf(await this.#state(scope), options, after);
  }

  /** How many memories the agent has in `status` (@default "live"). */
  async count(scope: AgentScope, options: { status?: MemoryStatus } = {}): Promise<number> {
    return (await this.#state(scope)).created[options.status ?? "live"].size;
  }

  /** Upkeep revisions in one transaction (fenced when asked); unknown ids are ignored. */
  async revise(
    scope: AgentScope,
    revisions: readonly MemoryRevision[],
    options: FencedWrite = {},
  ): Promise<number> {
    if (!checkRevisions(revisions)) return 0;
    return await this.#writing(scope, "revise memories", async (state) => {
      const changes = revisionChanges(state, revisions);
      if (changes.length > 0) await this.#update(scope, state, { changes, ...options });
      return changes.length;
    });
  }

  /** Sets `lastAccessedAt = at` on existing memories; unknown ids are ignored. Idempotent. */
  async touch(scope: AgentScope, ids: readonly MemoryId[], at: GameTime): Promise<void> {
    if (ids.length === 0) return;
    await this.#writing(scope, "touch memories", async (state) => {
      const targets = [...new Set(ids)]
        .map((id) => state.byId.get(id))
        .filter((e): e is Entry => e !== undefined && e.record.lastAccessedAt !== at);
      if (targets.length === 0) return;
      const changes = targets.map((entry) => ({
        entry,
        overlay: { ...overlayOf(entry), lastAccessedAt: at },
      }));
      await this.#update(scope, state, { changes });
    });
  }

  /**
   * Sets a memory's importance and clears `importancePending`; false when the id does not exist.
   * @throws {SimulacraError} `invalid_request` when importance is not an integer 1-10.
   */
  async setImportance(scope: AgentScope, id: MemoryId, importance: number): Promise<boolean> {
    return (await this.revise(scope, [{ id, importance }])) === 1;
  }

  /** The ids of the top `n` by an index, highest first; ties by id, highest first. */
  async top(scope: AgentScope, index: MemoryIndex, n: number): Promise<MemoryId[]> {
    return (await this.leaders(scope, index, n)).ids;
  }

  /** The top `n` ids of an index with their scores, and the index's lowest score. */
  async leaders(scope: AgentScope, index: MemoryIndex, n: number): Promise<IndexLeaders> {
    return leadersOf(await this.#state(scope), index, n);
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
      const txn = await removalTransaction(this.#kv, scope, { state, doomed });
      try {
        await this.#commit(scope, state, txn);
      } finally {
        this.#agents.drop(scope);
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
    await this.#agents.run(scope, "clear memories", async () => {
      this.#agents.drop(scope);
      await this.#kv.delete([...prefix, "head"]);
      await deletePrefixes(this.#kv, [prefix]);
    });
  }

  /** Writes new overlays for entries in one transaction, then applies them to the cache. */
  async #update(
    scope: AgentScope,
    state: AgentState,
    { changes, fence }: { changes: readonly OverlayChange[] } & FencedWrite,
  ): Promise<void> {
    await this.#commit(scope, state, { ...overlayTransaction(scope, state, changes), fence });
    changes.forEach(({ entry, overlay }) => state.reveal(entry, overlay));
  }

  /**
   * {@linkcode commitWrites}, then moves the cached head (the store's own cache, updated in
   * place); drops the agent's cache on any failure so the next call reloads.
   */
  async #commit(scope: AgentScope, state: AgentState, txn: Transaction): Promise<void> {
    try {
      const headStamp = await commitWrites(this.#kv, { scope, headStamp: state.headStamp }, txn);
      state.committed(txn.head, headStamp);
    } catch (error) {
      this.#agents.drop(scope);
      throw error;
    }
  }

  /** Runs a write under the agent's mutex with its state loaded, translating KV errors. */
  #writing<T>(
    scope: AgentScope,
    action: string,
    fn: (state: AgentState) => Promise<T>,
  ): Promise<T> {
    return this.#agents.run(
      scope,
      action,
      async () => fn(await this.#agents.loaded(scope, this.#load)),
    );
  }

  /** The agent's cached state, loading it on first use (dropping what uncommitted writes left). */
  #state(scope: AgentScope): Promise<AgentState> {
    return this.#agents.get(scope, "read memories", this.#load);
  }
}
