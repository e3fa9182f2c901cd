/** @module The script that applies upkeep revisions to an agent's memories (archive, merge, supersede). */
import {
  type AgentScope,
  gameMinutes,
  LeaseLostError,
  type MemoryRevision,
  UPKEEP_FIELDS,
} from "../../../src/domain/mod.ts";
import type { FencedWrite } from "../../../src/ports/mod.ts";
import { MEMORY_SETS_LUA, type RedisKeys } from "../layout.ts";
import { unexpectedReply } from "../redis_calls.ts";
import type { Script } from "./script.ts";

/** What {@linkcode reviseMemories} writes. */
export interface ReviseMemories {
  keys: RedisKeys;
  scope: AgentScope;
  /** Checked revisions (`checkRevisions`), no id twice. */
  revisions: readonly MemoryRevision[];
  options: FencedWrite;
}

/**
 * KEYS: the memory sets (`RedisKeys.memorySets`), the fence's lock key, then one record hash per
 * revision. ARGV: the fence's token ("" for none), then per revision: id, new accessed score and
 * new importance ("" to keep), count of fields to set, count of fields to delete, the field/value
 * pairs, the fields. A memory that exists gets its fields, then is placed by them: in the live
 * sets, or (with `archivedAt` or `mergedInto`) in the out sets with the same scores; in the
 * superseded set or not. Returns -1 (writing nothing) when the fence is not held, else how many
 * memories existed.
 */
const LUA = `${MEMORY_SETS_LUA}
if ARGV[1] ~= '' and redis.call('GET', KEYS[zsets + 1]) ~= ARGV[1] then return -1 end
local i, revised = 2, 0
for r = zsets + 2, #KEYS do
  local id = ARGV[i]
  local nset, ndel = tonumber(ARGV[i + 3]), tonumber(ARGV[i + 4])
  local sets = i + 5
  local dels = sets + nset * 2
  if redis.call('EXISTS', KEYS[r]) == 1 then
    revised = revised + 1
    if nset > 0 then redis.call('HSET', KEYS[r], unpack(ARGV, sets, dels - 1)) end
    if ndel > 0 then redis.call('HDEL', KEYS[r], unpack(ARGV, dels, dels + ndel - 1)) end
    local accessed = ARGV[i + 1]
    if accessed == '' then
      accessed = redis.call('ZSCORE', KEYS[2], id) or redis.call('ZSCORE', KEYS[outAccessed], id)
    end
    local importance = ARGV[i + 2]
    if importance == '' then
      importance = redis.call('ZSCORE', KEYS[3], id) or redis.call('ZSCORE', KEYS[outImportance], id)
    end
    local created = redis.call('ZSCORE', KEYS[1], id)
    for _, z in ipairs({ 2, 3, live, out, outAccessed, outImportance }) do
      redis.call('ZREM', KEYS[z], id)
    end
    if redis.call('HEXISTS', KEYS[r], 'archivedAt') == 1 or
        redis.call('HEXISTS', KEYS[r], 'mergedInto') == 1 then
      redis.call('ZADD', KEYS[out], created, id)
      redis.call('ZADD', KEYS[outAccessed], accessed, id)
      redis.call('ZADD', KEYS[outImportance], importance, id)
    else
      redis.call('ZADD', KEYS[live], created, id)
      redis.call('ZADD', KEYS[2], accessed, id)
      redis.call('ZADD', KEYS[3], importance, id)
    end
    if redis.call('HEXISTS', KEYS[r], 'supersededBy') == 1 then
      redis.call('ZADD', KEYS[superseded], 0, id)
    else
      redis.call('ZREM', KEYS[superseded], id)
    end
  end
  i = dels + ndel
end
return revised
`;

/** A revision's ARGV: id, scores, then the fields set and deleted (values JSON, as appended). */
function revisionArgs(revision: MemoryRevision): string[] {
  const set: string[] = [];
  const del: string[] = [];
  for (const field of UPKEEP_FIELDS) {
    const value = revision[field];
    if (value === null) del.push(field);
    else if (value !== undefined) set.push(field, JSON.stringify(value));
  }
  if (revision.importance !== undefined) {
    set.push("importance", JSON.stringify(revision.importance));
    del.push("importancePending");
  }
  const accessed = revision.lastAccessedAt;
  if (accessed !== undefined) set.push("lastAccessedAt", JSON.stringify(accessed));
  return [
    revision.id,
    accessed === undefined ? "" : String(gameMinutes(accessed)),
    revision.importance === undefined ? "" : String(revision.importance),
    String(set.length / 2),
    String(del.length),
    ...set,
    ...del,
  ];
}

/** Applies revisions atomically, fenced (`MemoryStore.revise`); resolves to how many existed. */
export const reviseMemories: Script<ReviseMemories, number> = {
  action: "revise memories",
  lua: LUA,
  encode: ({ keys, scope, revisions, options }) => ({
    keys: [
      ...keys.memorySets(scope),
      keys.lock(options.fence?.key ?? "-"),
      ...revisions.map((r) => keys.memory(scope, r.id)),
    ],
    args: [options.fence?.token ?? "", ...revisions.flatMap(revisionArgs)],
  }),
  decode(reply, { options }) {
    const revised = Number(reply);
    if (!Number.isInteger(revised)) unexpectedReply("revise memories");
    if (revised < 0) throw new LeaseLostError(options.fence!.key);
    return revised;
  },
};
