/** @module The hosted MemoryStore: memory records and their sorted indexes in Upstash Redis. */
import {
  type AgentScope,
  checkRevisions,
  gameMinutes,
  type GameTime,
  type MemoryId,
  type MemoryKind,
  type MemoryRecord,
  type MemoryRevision,
  type MemoryStatus,
  SimulacraError,
} from "../../src/domain/mod.ts";
import type {
  AppendOptions,
  FencedWrite,
  ListMemoriesOptions,
  MemoryCandidates,
  MemoryInclusion,
  MemoryIndex,
  MemoryPage,
  MemoryStore,
} from "../../src/ports/mod.ts";
import { KINDS } from "./layout.ts";
import { decodeCursor, decodeRecord, idList, pageOf } from "./memory_replies.ts";
import { ScriptedStore, type ScriptedStoreConfig } from "./_scripted_store.ts";
import { redisCall } from "./redis_calls.ts";
import { appendMemories } from "./scripts/append_memories.ts";
import { memoriesSince } from "./scripts/memories_since.ts";
import { memoryCandidates } from "./scripts/memory_candidates.ts";
import { pageMemories } from "./scripts/page_memories.ts";
import { removeMemories } from "./scripts/remove_memories.ts";
import { reviseMemories } from "./scripts/revise_memories.ts";
import { setImportance } from "./scripts/set_importance.ts";
import { touchMemories } from "./scripts/touch_memories.ts";

/**
 * The longest first page read in one script with its records (`scripts/memories_since.ts`);
 * longer ones read their records outside Lua, holding Upstash's script lock for less.
 */
const SCRIPTED_PAGE = 100;

/** Configuration of {@linkcode UpstashMemoryStore}. */
export type UpstashMemoryStoreConfig = ScriptedStoreConfig;

/** {@linkcode UpstashMemoryStore.append}'s options: the port's, plus the vectors' copies. */
export interface UpstashAppendOptions extends AppendOptions {
  /**
   * The hosted vector index's half-precision copies of the memories' vectors, one per memory in
   * order (`UpstashVectorIndex.storeRemote`), written with the records in the same script.
   */
  vectorCopies?: readonly string[];
}

/**
 * Each memory is a hash (one field per record field, values JSON-encoded) so `touch` and
 * `setImportance` change one field without rewriting the record. Per agent, sorted sets keep
 * the `created`, `lastAccessed` and `importance` orders plus one created-set per kind; scores
 * are game minutes or the importance, and Redis orders equal scores by id. `append`, `touch`,
 * `setImportance` and `candidates` are scripts (in `scripts/`), hence atomic. Throws
 * `store_unavailable` when Upstash fails, `conflict` on an existing id, `invalid_request` on a
 * record of another scope or a bad cursor.
 */
export class UpstashMemoryStore extends ScriptedStore implements MemoryStore {
  async remove(scope: AgentScope, ids: readonly MemoryId[]): Promise<number> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return 0;
    return await this.scripts.run(removeMemories, { keys: this.keys, scope, ids: unique });
  }

  /** Removes the agent's records in scripts of 500, then its sorted sets. */
  async clear(scope: AgentScope): Promise<void> {
    const ids = await this.#allIds(scope, "remove memories");
    for (let i = 0; i < ids.length; i += 500) await this.remove(scope, ids.slice(i, i + 500));
    await redisCall("remove memories", () => this.redis.del(...this.keys.memorySets(scope)));
  }

  /** One script; with `options.vectorCopies`, storing memories with their vectors costs one request. */
  async append(
    scope: AgentScope,
    memories: readonly MemoryRecord[],
    options: UpstashAppendOptions = {},
  ): Promise<number> {
    if (memories.length === 0) return await this.count(scope);
    const { vectorCopies, ...append } = options;
    // In the shared pipeline: the steps of a tick append together with their other commands.
    return await this.scripts.run(appendMemories, {
      keys: this.keys,
      scope,
      memories,
      options: append,
      vectorCopies,
    }, { pipelined: true });
  }

  async get(scope: AgentScope, id: MemoryId): Promise<MemoryRecord | null> {
    const [record] = await this.getMany(scope, [id]);
    return record;
  }

  /**
   * HGETALLs sent in one pipelined request (with other reads started at the same time), with no
   * Lua script, so no database-wide script lock on Upstash. Each record is read whole.
   */
  getMany(scope: AgentScope, ids: readonly MemoryId[]): Promise<(MemoryRecord | null)[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return redisCall("read memories", async () => {
      const replies = await Promise.all(
        ids.map((id) => this.reads.read((p) => p.hgetall(this.keys.memory(scope, id)))),
      );
      return replies.map((hash) => decodeRecord(hash));
    });
  }

  /** One read-only script, queued in the shared read pipeline (`scripts/memory_candidates.ts`). */
  candidates(
    scope: AgentScope,
    ids: readonly MemoryId[],
    options: { heads: number; kinds?: readonly MemoryKind[]; include?: MemoryInclusion },
  ): Promise<MemoryCandidates> {
    return this.scripts.run(
      memoryCandidates,
      { keys: this.keys, scope, ids, ...options },
      { pipelined: true },
    );
  }

  /** One script (`scripts/revise_memories.ts`). */
  async revise(scope: AgentScope, revisions: readonly MemoryRevision[], options?: FencedWrite) {
    if (!checkRevisions(revisions)) return 0;
    const input = { keys: this.keys, scope, revisions, options: options ?? {} };
    return await this.scripts.run(reviseMemories, input);
  }

  async all(scope: AgentScope): Promise<MemoryRecord[]> {
    const ids = await this.#allIds(scope, "list memories");
    // Records and set entries go together, so every id read above still has its record.
    const records = await this.getMany(scope, ids);
    return records.filter((r): r is MemoryRecord => r !== null);
  }

  /**
   * Without a kind, pages through the status's own created-set; with one, through the kind's
   * (every memory of it) keeping those of the status, so such a page may be short.
   */
  async list(scope: AgentScope, options: ListMemoriesOptions): Promise<MemoryPage> {
    const order = options.order ?? "desc";
    const kind = options.kind ?? null;
    const status = options.status ?? "live";
    const limit = Math.min(1000, Math.max(1, Math.floor(options.limit) || 1));
    if (kind !== null && !KINDS.includes(kind)) {
      throw new SimulacraError("invalid_request", `Cannot list memories of kind "${kind}"`);
    }
    const cursor = options.cursor === undefined ? null : decodeCursor(options.cursor, order, kind);
    const since = options.since === undefined ? null : gameMinutes(options.since);
    if (since !== null && !Number.isFinite(since)) {
      throw new SimulacraError("invalid_request", `Cannot list memories since "${options.since}"`);
    }
    const set = kind === null
      ? this.keys.memoryStatus(scope, status)
      : this.keys.memoryKind(scope, kind);
    const filter = { order, kind, since, status: kind === null ? "all" as const : status };
    if (cursor === null && (since !== null || limit <= SCRIPTED_PAGE)) {
      // A first page (since a minute, or a short one), records included, in one scripted read:
      // a ZRANGE and then its records cost two requests (issue 25's busiest hour).
      const page = await this.scripts.run(
        memoriesSince,
        { keys: this.keys, scope, set, order, since: since ?? -Infinity, limit },
        { pipelined: true },
      );
      return pageOf(page.records, page.ids.length > limit, filter);
    }
    const ids = cursor !== null
      ? await this.scripts.run(pageMemories, { set, order, count: limit + 1, after: cursor })
      : await redisCall("list memories", async () => {
        // A first page is a plain ZRANGE, sent with other reads started at the same time.
        const reply = await this.reads.read((p) =>
          p.zrange(set, 0, limit, { rev: order === "desc" })
        );
        return idList(reply, "list memories");
      });
    const pageIds = ids.slice(0, limit);
    const read = (await this.getMany(scope, pageIds)).filter((r): r is MemoryRecord => r !== null);
    return pageOf(read, ids.length > limit, filter);
  }

  count(scope: AgentScope, options: { status?: MemoryStatus } = {}): Promise<number> {
    const set = this.keys.memoryStatus(scope, options.status ?? "live");
    return redisCall("count memories", async () => {
      // Batched: the repair sweep counts every agent at once.
      const n: unknown = await this.reads.read((p) => p.zcard(set));
      return Number(n);
    });
  }

  async touch(scope: AgentScope, ids: readonly MemoryId[], at: GameTime): Promise<void> {
    if (ids.length === 0) return;
    const score = gameMinutes(at);
    if (!Number.isFinite(score)) {
      throw new SimulacraError("invalid_request", `Cannot mark memories accessed at "${at}"`);
    }
    // In the shared pipeline: a retrieval's touch goes with its reads of the records.
    await this.scripts.run(
      touchMemories,
      { keys: this.keys, scope, ids: [...new Set(ids)], at, score },
      { pipelined: true },
    );
  }

  async setImportance(scope: AgentScope, id: MemoryId, importance: number): Promise<boolean> {
    if (!Number.isFinite(importance)) {
      throw new SimulacraError("invalid_request", `Cannot set importance ${importance}`);
    }
    return await this.scripts.run(setImportance, { keys: this.keys, scope, id, importance });
  }

  top(scope: AgentScope, index: MemoryIndex, n: number): Promise<MemoryId[]> {
    const count = Math.floor(n);
    if (count <= 0) return Promise.resolve([]);
    const key = this.keys.memoryIndex(scope, index);
    return redisCall("rank memories", async () => {
      const reply = await this.reads.read((p) => p.zrange(key, 0, count - 1, { rev: true }));
      return idList(reply, "rank memories");
    });
  }

  #allIds(scope: AgentScope, action: string): Promise<MemoryId[]> {
    return redisCall(action, async () => {
      const reply: unknown = await this.redis.zrange(this.keys.memoryKind(scope, null), 0, -1);
      return idList(reply, action);
    });
  }
}
