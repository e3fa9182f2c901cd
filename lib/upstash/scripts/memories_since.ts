/**
 * @module The script that reads a first page of memories (since a game minute, or from the
 * first), records included.
 */
import type { AgentScope, MemoryId, MemoryRecord } from "../../../src/domain/mod.ts";
import type { RedisKeys } from "../layout.ts";
import { decodeRecord, idList } from "../memory_replies.ts";
import { unexpectedReply } from "../redis_calls.ts";
import type { Script } from "./script.ts";

/** The page to read. */
export interface MemoriesSince {
  keys: RedisKeys;
  scope: AgentScope;
  /** The created-set (of every kind, or of one). */
  set: string;
  order: "asc" | "desc";
  /** Game minutes; -Infinity: from the first. */
  since: number;
  limit: number;
}

/** The ids (`limit + 1` at most, to know whether a next page exists) and the first records. */
export interface MemoriesSinceReply {
  ids: MemoryId[];
  records: MemoryRecord[];
}

/**
 * KEYS: the created-set. ARGV: order, since, limit, the record keys' prefix. Record keys are the
 * prefix plus the id. Read-only, so it rides the shared read pipeline: a perceive reads its
 * recent observations in one command instead of a ZRANGE and a round trip of HGETALLs.
 */
const LUA = `
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

/** The ids by score (newest or oldest first), then the first `limit` records whole. */
export const memoriesSince: Script<MemoriesSince, MemoriesSinceReply> = {
  action: "list memories",
  lua: LUA,
  encode: ({ keys, scope, set, order, since, limit }) => ({
    keys: [set],
    args: [
      order,
      Number.isFinite(since) ? String(since) : "-inf",
      String(limit),
      keys.memory(scope, ""),
    ],
  }),
  decode(reply) {
    if (!Array.isArray(reply) || reply.length !== 2 || !Array.isArray(reply[1])) {
      unexpectedReply("list memories");
    }
    return {
      ids: idList(reply[0], "list memories"),
      records: reply[1].map((hash) => decodeRecord(hash)).filter((r) => r !== null),
    };
  },
};
