/**
 * @module Private to lib/upstash: the hosted memory store's write and paging scripts, and the
 * kinds whose created-sets they index (the candidates read is in `_memory_candidates.ts`).
 */
import type { MemoryKind } from "../../src/ports/memory_record.ts";

/** Every kind, in the order of their created-sets in a script's KEYS. */
export const KINDS: readonly MemoryKind[] = ["seed", "observation", "chat", "reflection", "plan"];
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
export const APPEND = `
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
export const TOUCH = `
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
export const SET_IMPORTANCE = `
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'importance', ARGV[1])
redis.call('HDEL', KEYS[2], 'importancePending')
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

// KEYS: every sorted set (ZSET_COUNT), then one record hash per id. ARGV: the ids. Removes the
// records that exist and their index entries; returns how many it removed.
export const REMOVE = `
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
export const PAGE = `
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
export const SINCE = `
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
