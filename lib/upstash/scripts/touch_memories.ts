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
 * KEYS: accessed, then one record hash per id. ARGV: score, JSON time, then the ids. A memory
 * exists when it is in the accessed set (append and remove change record and sets together), so
 * per 1,000 ids one ZMSCORE finds them and one ZADD re-sorts them: k + 2 commands, not 3k.
 */
const LUA = `
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

/** Sets the memories' `lastAccessedAt` and re-sorts them in the accessed set; skips missing ids. */
export const touchMemories: Script<TouchMemories, void> = {
  action: "mark memories accessed",
  lua: LUA,
  encode: ({ keys, scope, ids, at, score }) => ({
    keys: [keys.memoryIndex(scope, "lastAccessed"), ...ids.map((id) => keys.memory(scope, id))],
    args: [String(score), JSON.stringify(at), ...ids],
  }),
  decode: () => {},
};
