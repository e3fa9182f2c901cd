/** @module The script that reads the ids of a page of memories after a cursor. */
import type { MemoryId } from "../../../src/domain/mod.ts";
import { idList } from "../memory_replies.ts";
import type { Script } from "./script.ts";

/** A page after a cursor, in one created-set. */
export interface PageMemories {
  /** The created-set (of every kind, or of one). */
  set: string;
  order: "asc" | "desc";
  /** How many ids to read. */
  count: number;
  /** The last memory of the previous page and its score. */
  after: { id: string; score: number };
}

/**
 * KEYS: a created-set. ARGV: "desc" or "asc", count, cursor id, cursor score. Pages start right
 * after the cursor's member, found by rank, so appends before or after it cannot shift the page.
 * If it was removed (a forgotten memory), the page restarts after the cursor's score.
 */
const LUA = `
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

/** The ids of the page, in order. */
export const pageMemories: Script<PageMemories, MemoryId[]> = {
  action: "list memories",
  lua: LUA,
  encode: ({ set, order, count, after }) => ({
    keys: [set],
    args: [order, String(count), after.id, String(after.score)],
  }),
  decode: (reply) => idList(reply, "list memories"),
};
