/** @module The script that marks an agent's memories accessed. */
import type { AgentScope, MemoryId } from "../../../src/domain/mod.ts";
import type { RedisKeys } from "../layout.ts";
import type { Script } from "./script.ts";

/** The memories {@linkcode touchMemories} marks, and when. */
export interface TouchMemories {
  keys: RedisKeys;
  scope: AgentScope;
  /** Distinct ids. */
  ids: readonly MemoryId[];
  /** The access time, as stored in the records. */
  at: string;
  /** `at` in game minutes, the accessed-set's score. */
  score: number;
}

/**
 * KEYS: accessed, the accessed set of the memories out of the live set, then one record hash per
 * id. ARGV: score, JSON time, then the ids. A memory exists when it is in one of the two
 * accessed sets (append, revise and remove change record and sets together), so per 1,000 ids
 * one ZMSCORE finds the live ones and one ZADD re-sorts them: k + 2 commands, not 3k (plus as
 * many for those out of the live set, when retrieval brought archived ones back).
 */
const LUA = `
local n = #ARGV - 2
for from = 1, n, 1000 do
  local to = math.min(from + 999, n)
  local found = redis.call('ZMSCORE', KEYS[1], unpack(ARGV, from + 2, to + 2))
  local members = {}
  local rest = {}
  for r = from, to do
    if found[r - from + 1] then
      redis.call('HSET', KEYS[r + 2], 'lastAccessedAt', ARGV[2])
      members[#members + 1] = ARGV[1]
      members[#members + 1] = ARGV[r + 2]
    else
      rest[#rest + 1] = r
    end
  end
  if #members > 0 then redis.call('ZADD', KEYS[1], unpack(members)) end
  for _, r in ipairs(rest) do
    if redis.call('ZSCORE', KEYS[2], ARGV[r + 2]) then
      redis.call('HSET', KEYS[r + 2], 'lastAccessedAt', ARGV[2])
      redis.call('ZADD', KEYS[2], ARGV[1], ARGV[r + 2])
    end
  end
end
return 0
`;

/** Sets the memories' `lastAccessedAt` and re-sorts them in the accessed set; skips missing ids. */
export const touchMemories: Script<TouchMemories, void> = {
  action: "mark memories accessed",
  lua: LUA,
  encode: ({ keys, scope, ids, at, score }) => ({
    keys: [
      keys.memoryIndex(scope, "lastAccessed"),
      keys.upkeepSet(scope, "outAccessed"),
      ...ids.map((id) => keys.memory(scope, id)),
    ],
    args: [String(score), JSON.stringify(at), ...ids],
  }),
  decode: () => {},
};
