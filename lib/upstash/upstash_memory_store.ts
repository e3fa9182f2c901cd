/** @module The hosted MemoryStore: memory records and their sorted indexes in Upstash Redis. */
import { ConflictError, LeaseLostError, SimulacraError } from "../../src/errors.ts";
import type { AgentScope, MemoryId } from "../../src/ids.ts";
import type { MemoryKind, MemoryRecord } from "../../src/ports/memory_record.ts";
import type {
  ListMemoriesOptions,
  MemoryCandidates,
  MemoryIndex,
  MemoryPage,
  MemoryStore,
} from "../../src/ports/memory_store.ts";
import type { AppendOptions } from "../../src/ports/memory_store.ts";
import { claimTaken } from "../../src/ports/unit_of_work_store.ts";
import { gameMinutes, type GameTime } from "../../src/time/game_time.ts";
import {
  type LuaScript,
  luaScript,
  ReadBatcher,
  redisCall,
  type RedisClient,
  redisKey,
  unexpectedReply,
} from "./_upstash_calls.ts";
import { lockKey } from "./upstash_lock.ts";
import { encode, idempotencyKey } from "./upstash_idempotency_store.ts";
import { CANDIDATES, decodeCandidates } from "./_memory_candidates.ts";
import { decodeCursor, decodeRecord, idList, pageOf } from "./_memory_replies.ts";
import { APPEND, KINDS, PAGE, REMOVE, SET_IMPORTANCE, SINCE, TOUCH } from "./_memory_scripts.ts";

/** Configuration of {@linkcode UpstashMemoryStore}. */
export interface UpstashMemoryStoreConfig {
  redis: RedisClient;
  /** Shared with the other stores so reads started together go out together. */
  reads?: ReadBatcher;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
}

/**
 * Each memory is a hash (one field per record field, values JSON-encoded) so `touch` and
 * `setImportance` change one field without rewriting the record. Per agent, sorted sets keep
 * the `created`, `lastAccessed` and `importance` orders plus one created-set per kind; scores
 * are game minutes or the importance, and Redis orders equal scores by id. `append`, `touch`,
 * `setImportance` and `candidates` are scripts, hence atomic. Throws
 * `store_unavailable` when Upstash fails, `conflict` on an existing id, `invalid_request` on a
 * record of another scope or a bad cursor.
 */
export class UpstashMemoryStore implements MemoryStore {
  readonly #redis: RedisClient;
  readonly #reads: ReadBatcher;
  readonly #prefix: string;
  readonly #append: LuaScript;
  readonly #touch: LuaScript;
  readonly #setImportance: LuaScript;
  readonly #page: LuaScript;
  readonly #since: LuaScript;
  readonly #remove: LuaScript;
  readonly #candidates: LuaScript;

  constructor(config: UpstashMemoryStoreConfig) {
    this.#redis = config.redis;
    this.#reads = config.reads ?? new ReadBatcher(config.redis);
    this.#prefix = config.keyPrefix;
    this.#append = luaScript(config.redis, APPEND);
    this.#touch = luaScript(config.redis, TOUCH);
    this.#setImportance = luaScript(config.redis, SET_IMPORTANCE);
    this.#page = luaScript(config.redis, PAGE);
    this.#since = luaScript(config.redis, SINCE);
    this.#remove = luaScript(config.redis, REMOVE);
    this.#candidates = luaScript(config.redis, CANDIDATES);
  }

  async remove(scope: AgentScope, ids: readonly MemoryId[]): Promise<number> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return 0;
    return await redisCall("remove memories", async () => {
      const removed: unknown = await this.#remove.exec(
        [...this.#zsetKeys(scope), ...unique.map((id) => this.#recordKey(scope, id))],
        unique,
      );
      return Number(removed);
    });
  }

  /** Removes the agent's records in scripts of 500, then its sorted sets. */
  async clear(scope: AgentScope): Promise<void> {
    const ids = await redisCall("remove memories", async () => {
      const reply: unknown = await this.#redis.zrange(this.#zsetKeys(scope)[0], 0, -1);
      return idList(reply, "remove memories");
    });
    for (let i = 0; i < ids.length; i += 500) await this.remove(scope, ids.slice(i, i + 500));
    await redisCall("remove memories", () => this.#redis.del(...this.#zsetKeys(scope)));
  }

  /**
   * One script. `copies` (the hosted vector index's half-precision copies of the memories'
   * vectors, one per memory in order, see `UpstashVectorIndex.storeRemote`) are written with
   * the records, so storing a memory with its vector costs one Redis request.
   */
  async append(
    scope: AgentScope,
    memories: readonly MemoryRecord[],
    options: AppendOptions = {},
    copies?: { key: string; values: readonly string[] },
  ): Promise<void> {
    if (memories.length === 0) return;
    const seen = new Set<string>();
    for (const memory of memories) {
      if (memory.worldId !== scope.worldId || memory.agentId !== scope.agentId) {
        throw new SimulacraError(
          "invalid_request",
          `Cannot append memory "${memory.id}" to agent "${scope.agentId}" of world "${scope.worldId}": it belongs to agent "${memory.agentId}" of world "${memory.worldId}"`,
        );
      }
      if (seen.has(memory.id)) throw conflict(scope, memory.id);
      seen.add(memory.id);
      // Checked here because a bad score would fail the script halfway through its writes.
      const scores = [gameMinutes(memory.createdAt), gameMinutes(memory.lastAccessedAt)];
      if (
        !KINDS.includes(memory.kind) || !scores.every(Number.isFinite) ||
        !Number.isFinite(memory.importance)
      ) {
        throw new SimulacraError(
          "invalid_request",
          `Cannot append memory "${memory.id}": its kind, times or importance are not valid`,
        );
      }
    }
    const { fence } = options;
    const claims = options.claims ?? [];
    const keys = [
      ...this.#zsetKeys(scope),
      lockKey(this.#prefix, fence?.key ?? "-"),
      ...claims.map((c) => idempotencyKey(this.#prefix, c.scope, c.key)),
      ...(copies ? [copies.key] : []),
      ...memories.map((m) => this.#recordKey(scope, m.id)),
    ];
    const args: string[] = [
      fence?.token ?? "",
      String(claims.length),
      copies ? "1" : "0",
      ...claims.map((c) => encode(c.value)),
      ...(copies ? memories.flatMap((m, i) => [m.id, copies.values[i]]) : []),
    ];
    for (const memory of memories) {
      const fields = Object.entries(memory).filter(([, v]) => v !== undefined);
      args.push(
        memory.id,
        String(gameMinutes(memory.createdAt)),
        String(gameMinutes(memory.lastAccessedAt)),
        String(memory.importance),
        String(KINDS.indexOf(memory.kind) + 1),
        String(fields.length),
        ...fields.flatMap(([field, value]) => [field, JSON.stringify(value)]),
      );
    }
    const reply = await redisCall("append memories", () => this.#append.exec(keys, args));
    const claimed = /^claimed:(\d+)$/.exec(String(reply));
    if (claimed) throw claimTaken(claims[Number(claimed[1]) - 1]);
    const existing = Number(reply);
    if (!Number.isInteger(existing)) unexpectedReply("append memories");
    if (existing < 0) throw new LeaseLostError(fence!.key);
    if (existing > 0) throw conflict(scope, memories[existing - 1].id);
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
        ids.map((id) => this.#reads.read((p) => p.hgetall(this.#recordKey(scope, id)))),
      );
      return replies.map((hash) => decodeRecord(hash));
    });
  }

  /**
   * One read-only script, queued in the shared read pipeline: four ZRANGEs (the two heads and
   * their lowest scores) and three ZMSCOREs of the candidates (created, accessed, importance), plus
   * one per kind filtered on. A thousand candidates cost a handful of commands and no record
   * reads, so the database-wide script lock is held briefly. Scores are game minutes, exact to
   * the second, so `createdAt` round-trips.
   */
  async candidates(
    scope: AgentScope,
    ids: readonly MemoryId[],
    options: { heads: number; kinds?: readonly MemoryKind[] },
  ): Promise<MemoryCandidates> {
    const heads = Math.max(0, Math.floor(options.heads));
    const keys = this.#zsetKeys(scope);
    const kinds = options.kinds && KINDS.some((k) => !options.kinds!.includes(k))
      ? [...new Set(options.kinds)]
      : [];
    const reply = await redisCall("rank memories", () =>
      this.#reads.script(
        this.#candidates,
        [...keys.slice(0, 3), ...kinds.map((kind) => keys[3 + KINDS.indexOf(kind)])],
        [String(heads), ...ids],
      ));
    return decodeCandidates(reply, ids, kinds.length);
  }

  async all(scope: AgentScope): Promise<MemoryRecord[]> {
    const ids = await redisCall("list memories", async () => {
      const reply: unknown = await this.#redis.zrange(this.#zsetKeys(scope)[0], 0, -1);
      return idList(reply, "list memories");
    });
    // Memories are never removed, so every id read above still has its record.
    const records = await this.getMany(scope, ids);
    return records.filter((r): r is MemoryRecord => r !== null);
  }

  async list(scope: AgentScope, options: ListMemoriesOptions): Promise<MemoryPage> {
    const order = options.order ?? "desc";
    const kind = options.kind ?? null;
    const limit = Math.min(1000, Math.max(1, Math.floor(options.limit) || 1));
    if (kind !== null && !KINDS.includes(kind)) {
      throw new SimulacraError("invalid_request", `Cannot list memories of kind "${kind}"`);
    }
    const cursor = options.cursor === undefined ? null : decodeCursor(options.cursor, order, kind);
    const since = options.since === undefined ? null : gameMinutes(options.since);
    if (since !== null && !Number.isFinite(since)) {
      throw new SimulacraError("invalid_request", `Cannot list memories since "${options.since}"`);
    }
    const key = kind === null
      ? this.#zsetKeys(scope)[0]
      : this.#zsetKeys(scope)[3 + KINDS.indexOf(kind)];
    if (cursor === null && since !== null) {
      return this.#firstPageSince(scope, key, { order, kind, limit, since });
    }
    const ids = await redisCall("list memories", async () => {
      // A first page is a plain ZRANGE, sent with other reads started at the same time.
      const reply: unknown = cursor !== null
        ? await this.#page.exec([key], [order, String(limit + 1), cursor.id, String(cursor.score)])
        : await this.#reads.read((p) => p.zrange(key, 0, limit, { rev: order === "desc" }));
      return idList(reply, "list memories");
    });
    const pageIds = ids.slice(0, limit);
    const read = (await this.getMany(scope, pageIds)).filter((r): r is MemoryRecord => r !== null);
    return pageOf(read, ids.length > limit, { order, kind, since });
  }

  /** {@linkcode list}'s first page of memories since a game minute, in one scripted read. */
  async #firstPageSince(
    scope: AgentScope,
    key: string,
    page: { order: "asc" | "desc"; kind: MemoryKind | null; limit: number; since: number },
  ): Promise<MemoryPage> {
    const { order, kind, limit, since } = page;
    const reply = await redisCall("list memories", () =>
      this.#reads.script(this.#since, [key], [
        order,
        String(since),
        String(limit),
        this.#recordKey(scope, ""),
      ]));
    if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) {
      unexpectedReply("list memories");
    }
    const ids = idList(reply[0], "list memories");
    const read = reply[1].map((hash) => decodeRecord(hash)).filter((r) => r !== null);
    return pageOf(read, ids.length > limit, { order, kind, since });
  }

  count(scope: AgentScope): Promise<number> {
    return redisCall("count memories", async () => {
      // Batched: the repair sweep counts every agent at once.
      const n: unknown = await this.#reads.read((p) => p.zcard(this.#zsetKeys(scope)[0]));
      return Number(n);
    });
  }

  async touch(scope: AgentScope, ids: readonly MemoryId[], at: GameTime): Promise<void> {
    if (ids.length === 0) return;
    const score = gameMinutes(at);
    if (!Number.isFinite(score)) {
      throw new SimulacraError("invalid_request", `Cannot mark memories accessed at "${at}"`);
    }
    const unique = [...new Set(ids)];
    // In the shared pipeline: a retrieval's touch goes with its reads of the records.
    await redisCall(
      "mark memories accessed",
      () =>
        this.#reads.script(
          this.#touch,
          [this.#zsetKeys(scope)[1], ...unique.map((id) => this.#recordKey(scope, id))],
          [String(score), JSON.stringify(at), ...unique],
        ),
    );
  }

  async setImportance(scope: AgentScope, id: MemoryId, importance: number): Promise<boolean> {
    if (!Number.isFinite(importance)) {
      throw new SimulacraError("invalid_request", `Cannot set importance ${importance}`);
    }
    return await redisCall("set a memory's importance", async () => {
      const updated: unknown = await this.#setImportance.exec(
        [this.#zsetKeys(scope)[2], this.#recordKey(scope, id)],
        [String(importance), id],
      );
      return Number(updated) === 1;
    });
  }

  top(scope: AgentScope, index: MemoryIndex, n: number): Promise<MemoryId[]> {
    const count = Math.floor(n);
    if (count <= 0) return Promise.resolve([]);
    const key = this.#indexKey(scope, index);
    return redisCall("rank memories", async () => {
      const reply = await this.#reads.read((p) => p.zrange(key, 0, count - 1, { rev: true }));
      return idList(reply, "rank memories");
    });
  }

  #indexKey(scope: AgentScope, index: MemoryIndex): string {
    return this.#zsetKeys(scope)[index === "created" ? 0 : index === "lastAccessed" ? 1 : 2];
  }

  /** created, accessed, importance, then the created-set of each kind in KINDS order. */
  #zsetKeys(scope: AgentScope): string[] {
    const base = ["mem", scope.worldId, scope.agentId];
    return [
      redisKey(this.#prefix, ...base, "created"),
      redisKey(this.#prefix, ...base, "accessed"),
      redisKey(this.#prefix, ...base, "importance"),
      ...KINDS.map((kind) => redisKey(this.#prefix, ...base, "kind", kind)),
    ];
  }

  #recordKey(scope: AgentScope, id: string): string {
    return redisKey(this.#prefix, "mem", scope.worldId, scope.agentId, "m", id);
  }
}

function conflict(scope: AgentScope, id: string): ConflictError {
  return new ConflictError(
    `Cannot append memory "${id}": agent "${scope.agentId}" of world "${scope.worldId}" already has it`,
  );
}
