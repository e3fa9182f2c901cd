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
  pairs,
  ReadBatcher,
  redisCall,
  type RedisClient,
  redisKey,
  unexpectedReply,
} from "./_upstash_calls.ts";
import { lockKey } from "./upstash_lock.ts";
import { encode, idempotencyKey } from "./upstash_idempotency_store.ts";
import { CANDIDATES, decodeCandidates } from "./_memory_candidates.ts";

/** Configuration of {@linkcode UpstashMemoryStore}. */
export interface UpstashMemoryStoreConfig {
  redis: RedisClient;
  /** Shared with the other stores so reads started together go out together. */
  reads?: ReadBatcher;
  /** Prepended to every key, so deployments can share a database. */
  keyPrefix: string;
}

const KINDS: readonly MemoryKind[] = ["seed", "observation", "chat", "reflection", "plan"];
const ZSET_COUNT = 3 + KINDS.length;

// All scripts below run atomically: Redis executes a script without interleaving any other
// client's command. Every key a script touches is passed in KEYS (none is built inside Lua).

// KEYS: created, accessed, importance, one created-set per kind (KINDS order), the fence's lock
// key, one key per claim, the vector copies' hash when ARGV[3] is 1, then one record hash per
// memory. ARGV: the fence's token ("" for none), claim count, copies flag, the claims' values,
// the copies' id/value pairs when the flag is 1 (one per memory), then per memory: id, created
// score, accessed score, importance, kind number (1-based), field count, then field/value
// pairs. Returns -1 (writing nothing) when the fence is not held, "claimed:<i>" when claim i
// holds another value, the position (1-based) of the first memory whose id exists; otherwise
// writes all and returns 0.
const APPEND = `
local zsets = ${ZSET_COUNT}
if ARGV[1] ~= '' and redis.call('GET', KEYS[zsets + 1]) ~= ARGV[1] then return -1 end
local nc = tonumber(ARGV[2])
local copies = tonumber(ARGV[3])
for c = 1, nc do
  local held = redis.call('GET', KEYS[zsets + 1 + c])
  if held and held ~= ARGV[3 + c] then return 'claimed:' .. c end
end
local first = zsets + 2 + nc + copies
local n = #KEYS - first + 1
for r = 1, n do
  if redis.call('EXISTS', KEYS[first + r - 1]) == 1 then return r end
end
for c = 1, nc do redis.call('SET', KEYS[zsets + 1 + c], ARGV[3 + c]) end
local i = 4 + nc
if copies == 1 then
  redis.call('HSET', KEYS[zsets + 2 + nc], unpack(ARGV, i, i + 2 * n - 1))
  i = i + 2 * n
end
for r = 1, n do
  local id = ARGV[i]
  local fields = tonumber(ARGV[i + 5])
  redis.call('HSET', KEYS[first + r - 1], unpack(ARGV, i + 6, i + 5 + fields * 2))
  redis.call('ZADD', KEYS[1], ARGV[i + 1], id)
  redis.call('ZADD', KEYS[2], ARGV[i + 2], id)
  redis.call('ZADD', KEYS[3], ARGV[i + 3], id)
  redis.call('ZADD', KEYS[3 + tonumber(ARGV[i + 4])], ARGV[i + 1], id)
  i = i + 6 + fields * 2
end
return 0
`;

// KEYS: accessed, then one record hash per id. ARGV: score, JSON time, then the ids. A memory
// exists when it is in the accessed set (append and remove change record and sets together), so
// per 1,000 ids one ZMSCORE finds them and one ZADD re-sorts them: k + 2 commands, not 3k.
const TOUCH = `
local n = #ARGV - 2
for from = 1, n, 1000 do
  local to = math.min(from + 999, n)
  local found = redis.call('ZMSCORE', KEYS[1], unpack(ARGV, from + 2, to + 2))
  local members = {}
  for r = from, to do
    if found[r - from + 1] then
      redis.call('HSET', KEYS[r + 1], 'lastAccessedAt', ARGV[2])
      members[#members + 1] = ARGV[1]
      members[#members + 1] = ARGV[r + 2]
    end
  end
  if #members > 0 then redis.call('ZADD', KEYS[1], unpack(members)) end
end
return 0
`;

// KEYS: importance, record. ARGV: importance, id.
const SET_IMPORTANCE = `
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'importance', ARGV[1])
redis.call('HDEL', KEYS[2], 'importancePending')
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

// KEYS: every sorted set (ZSET_COUNT), then one record hash per id. ARGV: the ids. Removes the
// records that exist and their index entries; returns how many it removed.
const REMOVE = `
local zsets = ${ZSET_COUNT}
local removed = 0
for r = 1, #ARGV do
  if redis.call('DEL', KEYS[zsets + r]) == 1 then
    removed = removed + 1
    for z = 1, zsets do redis.call('ZREM', KEYS[z], ARGV[r]) end
  end
end
return removed
`;

// KEYS: a created-set. ARGV: "desc" or "asc", count, cursor id ("" for the first page), cursor
// score. Pages start right after the cursor's member, found by rank, so appends before or
// after it cannot shift the page. If it was removed (a forgotten memory), the page restarts
// after the cursor's score.
const PAGE = `
local desc = ARGV[1] == 'desc'
local count = tonumber(ARGV[2])
local start = 0
if ARGV[3] ~= '' then
  local rank
  if desc then rank = redis.call('ZREVRANK', KEYS[1], ARGV[3])
  else rank = redis.call('ZRANK', KEYS[1], ARGV[3]) end
  if rank then
    start = rank + 1
  elseif desc then
    start = redis.call('ZCOUNT', KEYS[1], ARGV[4], '+inf')
  else
    start = redis.call('ZCOUNT', KEYS[1], '-inf', ARGV[4])
  end
end
if desc then return redis.call('ZRANGE', KEYS[1], start, start + count - 1, 'REV') end
return redis.call('ZRANGE', KEYS[1], start, start + count - 1)
`;

/**
 * A first page since a game minute, records included: the ids by score (newest or oldest first,
 * `limit + 1` of them to know whether a next page exists), then the first `limit` records whole.
 * Read-only, so it rides the shared read pipeline: a perceive reads its recent observations in
 * one command instead of a ZRANGE and a round trip of HGETALLs. Record keys are the prefix plus
 * the id (ids need no encoding: letters, digits, '_' and '-').
 */
const SINCE = `
local ids
if ARGV[1] == 'desc' then
  ids = redis.call('ZRANGE', KEYS[1], '+inf', ARGV[2], 'BYSCORE', 'REV', 'LIMIT', 0, ARGV[3] + 1)
else
  ids = redis.call('ZRANGE', KEYS[1], ARGV[2], '+inf', 'BYSCORE', 'LIMIT', 0, ARGV[3] + 1)
end
local records = {}
for i = 1, math.min(#ids, tonumber(ARGV[3])) do
  records[i] = redis.call('HGETALL', ARGV[4] .. ids[i])
end
return { ids, records }
`;

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

interface Cursor {
  order: "asc" | "desc";
  kind: MemoryKind | null;
  id: string;
  score: number;
}

function encodeCursor(cursor: Cursor): string {
  const json = JSON.stringify([cursor.order, cursor.kind, cursor.id, cursor.score]);
  return btoa(json).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function decodeCursor(text: string, order: "asc" | "desc", kind: MemoryKind | null): Cursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(atob(text.replaceAll("-", "+").replaceAll("_", "/")));
  } catch {
    parsed = null;
  }
  if (
    !Array.isArray(parsed) || parsed.length !== 4 || typeof parsed[2] !== "string" ||
    typeof parsed[3] !== "number"
  ) {
    throw new SimulacraError(
      "invalid_request",
      "Cannot read the cursor: pass the `next` value of the previous page unchanged",
    );
  }
  if (parsed[0] !== order || parsed[1] !== kind) {
    throw new SimulacraError(
      "invalid_request",
      "Cannot use the cursor with another order or kind: keep the options of the first page",
    );
  }
  return { order, kind, id: parsed[2], score: parsed[3] };
}

function conflict(scope: AgentScope, id: string): ConflictError {
  return new ConflictError(
    `Cannot append memory "${id}": agent "${scope.agentId}" of world "${scope.worldId}" already has it`,
  );
}

/**
 * A page of `read` records; `more` when the store holds more after them. A page of newest-first
 * order since a minute ends at the first record older than it.
 */
function pageOf(
  read: MemoryRecord[],
  more: boolean,
  { order, kind, since }: { order: "asc" | "desc"; kind: MemoryKind | null; since: number | null },
): MemoryPage {
  const records = since === null ? read : read.filter((r) => gameMinutes(r.createdAt) >= since);
  const last = records.at(-1);
  const next = more && last && records.length === read.length
    ? encodeCursor({ order, kind, id: last.id, score: gameMinutes(last.createdAt) })
    : null;
  return { memories: records, next };
}

function idList(reply: unknown, action: string): MemoryId[] {
  if (!Array.isArray(reply)) unexpectedReply(action);
  return reply.map((id) => String(id) as MemoryId);
}

function parseField(raw: unknown): unknown {
  return JSON.parse(String(raw));
}

function decodeRecord(hash: unknown): MemoryRecord | null {
  const fields = pairs(hash, "read memories");
  if (fields.length === 0) return null;
  const record: Record<string, unknown> = {};
  for (const [field, value] of fields) record[field] = parseField(value);
  return record as unknown as MemoryRecord;
}
