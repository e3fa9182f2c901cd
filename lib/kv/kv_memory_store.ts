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
import { gameMinutes, type GameTime } from "../../src/time/game_time.ts";
import { agentOwner, CacheBudget } from "./_cache_budget.ts";
import { KeyedMutex } from "./_keyed_mutex.ts";
import type { MemoryColumns } from "./_memory_columns.ts";
import {
  assertKeySize,
  deleteKey,
  deletePrefixes,
  guard,
  type KvWrite,
  listAll,
  setValue,
} from "./_kv_support.ts";
import {
  claimAhead,
  claiming,
  CLAIMS_IN_COMMIT,
  commitWrites,
  loadAgent,
  recordWrites,
  type Transaction,
} from "./_memory_commit.ts";
import { leadersOf, pageOf, pageStart } from "./_memory_reads.ts";
import {
  addEntry,
  type AgentState,
  type Entry,
  type Overlay,
  overlayOf,
  prefixOf,
  setOverlay,
  type StoredOverlay,
} from "./_memory_state.ts";

/** Configuration of {@linkcode KvMemoryStore}. */
export interface KvMemoryStoreOptions {
  /** An open Deno KV; the caller closes it. */
  kv: Deno.Kv;
  /** The cache budget, shared with the vector index. @default 256 MiB of its own */
  budget?: CacheBudget;
}

/**
 * Estimated bytes one cached memory takes (record, four sorted indexes, columns), for the cache
 * budget; measured with `tests/bench/embedded_cache_rss.ts`.
 */
const MEMORY_CACHE_BYTES = 1_200;

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
      const { writes, entries } = recordWrites(scope, memories, state.head.seq);
      const head = { seq: state.head.seq + memories.length, txn: state.head.txn + 1 };
      // KV checks at most 100 keys per atomic operation: many claims are stored ahead (a crash
      // then leaves claims of ids never stored, which a retry with the same ids goes through).
      const inFinal = claims.length <= CLAIMS_IN_COMMIT;
      if (!inFinal) await claimAhead(this.#kv, claims, options.fence);
      await this.#commit(scope, state, {
        writes,
        head,
        fence: options.fence,
        final: inFinal && claims.length > 0 ? () => claiming(this.#kv, claims) : undefined,
      });
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
    const after = pageStart(options);
    return pageOf(await this.#state(scope), options, after);
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
      await this.#update(
        scope,
        state,
        targets.map((entry) => ({ entry, overlay: { ...overlayOf(entry), lastAccessedAt: at } })),
      );
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
      await this.#update(scope, state, [{ entry, overlay: { lastAccessedAt, importance } }]);
      return true;
    });
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
      const prefix = prefixOf(scope);
      const writes: KvWrite[] = [];
      for (const entry of doomed) {
        const parts = await listAll(this.#kv, { prefix: [...prefix, "rec", entry.seq] });
        for (const part of parts) writes.push(deleteKey(part.key));
        writes.push(deleteKey([...prefix, "ovl", entry.seq]));
      }
      try {
        await this.#commit(scope, state, {
          writes,
          head: { seq: state.head.seq, txn: state.head.txn + 1 },
        });
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

  /** Writes new overlays for entries in one transaction, then applies them to the cache. */
  async #update(
    scope: AgentScope,
    state: AgentState,
    changes: readonly { entry: Entry; overlay: Overlay }[],
  ): Promise<void> {
    const txn = state.head.txn + 1;
    const writes = changes.map(({ entry, overlay }) =>
      setValue(
        [...prefixOf(scope), "ovl", entry.seq],
        { txn, next: overlay, prev: entry.overlay } satisfies StoredOverlay,
      )
    );
    await this.#commit(scope, state, { writes, head: { seq: state.head.seq, txn } });
    changes.forEach(({ entry, overlay }) => setOverlay(state, entry, overlay));
  }

  /**
   * {@linkcode commitWrites}, then moves the cached head (the store's own cache, updated in
   * place); drops the agent's cache on any failure so the next call reloads.
   */
  async #commit(scope: AgentScope, state: AgentState, txn: Transaction): Promise<void> {
    try {
      state.headStamp = await commitWrites(this.#kv, { scope, headStamp: state.headStamp }, txn);
      state.head = txn.head;
    } catch (error) {
      const key = JSON.stringify(prefixOf(scope));
      this.#agents.delete(key);
      this.#budget.forget(`mem:${key}`);
      throw error;
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
    if (cached !== undefined) return this.#used(scope, cached);
    return await this.#mutex.run(key, () => guard("read memories", () => this.#load(scope)));
  }

  /** Marks an agent's state as just used in the cache budget (which may evict others). */
  #used(scope: AgentScope, state: AgentState): AgentState {
    const key = JSON.stringify(prefixOf(scope));
    this.#budget.use(`mem:${key}`, {
      bytes: state.byId.size * MEMORY_CACHE_BYTES,
      evict: () => {
        if (this.#agents.get(key) === state) this.#agents.delete(key);
      },
      owner: agentOwner(scope),
    });
    return state;
  }

  /** Loads an agent from KV (call under its mutex), dropping what uncommitted writes left. */
  async #load(scope: AgentScope): Promise<AgentState> {
    const key = JSON.stringify(prefixOf(scope));
    const cached = this.#agents.get(key);
    if (cached !== undefined) return this.#used(scope, cached);
    const state = await loadAgent(this.#kv, scope);
    this.#agents.set(key, state);
    return this.#used(scope, state);
  }
}
